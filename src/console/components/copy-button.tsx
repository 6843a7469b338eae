import { ActionIcon, CopyButton as MantineCopy, Tooltip } from "@mantine/core";

/** Copies `value`; says so for a moment. */
export function CopyButton({ value, label = "Copy" }: { value: string; label?: string }) {
  return (
    <MantineCopy value={value} timeout={1500}>
      {({ copied, copy }) => (
        <Tooltip label={copied ? "Copied" : label} withArrow>
          <ActionIcon variant="subtle" onClick={copy} aria-label={label} color={copied ? "teal" : "gray"}>
            {copied ? "✓" : "⧉"}
          </ActionIcon>
        </Tooltip>
      )}
    </MantineCopy>
  );
}
