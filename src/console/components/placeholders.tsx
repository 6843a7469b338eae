import { Code } from "@mantine/core";

// Masked values (docs/masking.md) read as placeholders such as <EMAIL_1>: set apart wherever text is shown.

export const HAS_PLACEHOLDER = /<[A-Z][A-Z0-9_]{0,40}_\d{1,6}>/;

/** A text with its placeholders (<EMAIL_1>) set apart. */
export function WithPlaceholders({ text }: { text: string }) {
  const parts = text.split(/(<[A-Z][A-Z0-9_]{0,40}_\d{1,6}>)/);
  return (
    <>
      {parts.map((p, i) =>
        i % 2 ? (
          // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one fixed text
          <Code key={i} style={{ color: "var(--hone-placeholder-color)" }} data-placeholder>
            {p}
          </Code>
        ) : (
          p
        ),
      )}
    </>
  );
}
