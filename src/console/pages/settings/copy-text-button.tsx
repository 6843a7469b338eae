import { Button, CopyButton } from "@mantine/core";

/** "Copy", then "Copied" for a moment: a text button, readable without an icon font. */
export function CopyTextButton({ value, label }: { value: string; label: string }) {
  return (
    <CopyButton value={value} timeout={1500}>
      {({ copied, copy }) => (
        <Button size="xs" variant={copied ? "light" : "default"} color={copied ? "teal" : undefined} onClick={copy} aria-label={label} miw={72}>
          {copied ? "Copied" : "Copy"}
        </Button>
      )}
    </CopyButton>
  );
}
