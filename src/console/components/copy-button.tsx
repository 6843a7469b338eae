import { ActionIcon, CopyButton as MantineCopy, Tooltip } from "@mantine/core";

const CopyIcon = () => (
  <svg width="16" height="16" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="2" aria-hidden="true">
    <rect x="9" y="9" width="12" height="12" rx="2" />
    <path d="M5 15V5a2 2 0 0 1 2-2h10" />
  </svg>
);
const CheckIcon = () => (
  <svg width="16" height="16" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="2.5" aria-hidden="true">
    <path d="M5 12l5 5L20 7" />
  </svg>
);

/** Copies `value`; says so for a moment. */
export function CopyButton({ value, label = "Copy" }: { value: string; label?: string }) {
  return (
    <MantineCopy value={value} timeout={1500}>
      {({ copied, copy }) => (
        <Tooltip label={copied ? "Copied" : label} withArrow>
          <ActionIcon variant="subtle" onClick={copy} aria-label={label} color={copied ? "teal" : "gray"}>
            {copied ? <CheckIcon /> : <CopyIcon />}
          </ActionIcon>
        </Tooltip>
      )}
    </MantineCopy>
  );
}
