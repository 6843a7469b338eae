import { Box, Group, Text } from "@mantine/core";
import { diffLines, diffWordsWithSpace } from "diff";

/**
 * What changed from `before` to `after`, inline: removed text struck through on red, added text
 * underlined on green (the marks, not only the colours, tell them apart). Words for short texts,
 * lines for long ones.
 */
export function TextDiff({ before, after, label }: { before: string; after: string; label: string }) {
  const parts = before.length + after.length > 4000 ? diffLines(before, after) : diffWordsWithSpace(before, after);
  const added = parts.filter((p) => p.added).reduce((n, p) => n + p.value.length, 0);
  const removed = parts.filter((p) => p.removed).reduce((n, p) => n + p.value.length, 0);
  return (
    <Box>
      <Group gap="xs" mb={4}>
        <Text size="xs" c="dimmed">
          {label}: {added || removed ? `${added} characters added, ${removed} removed` : "no change"}
        </Text>
      </Group>
      <Box
        component="pre"
        aria-label={label}
        data-testid="text-diff"
        style={{
          whiteSpace: "pre-wrap",
          wordBreak: "break-word",
          fontSize: 13,
          margin: 0,
          padding: 8,
          border: "1px solid var(--mantine-color-default-border)",
          borderRadius: 6,
        }}
      >
        {parts.map((p, i) =>
          p.added ? (
            // biome-ignore lint/suspicious/noArrayIndexKey: diff parts are positional
            <ins key={i} style={{ background: "var(--mantine-color-teal-light)", textDecoration: "underline" }}>
              {p.value}
            </ins>
          ) : p.removed ? (
            // biome-ignore lint/suspicious/noArrayIndexKey: diff parts are positional
            <del key={i} style={{ background: "var(--mantine-color-red-light)" }}>
              {p.value}
            </del>
          ) : (
            // biome-ignore lint/suspicious/noArrayIndexKey: diff parts are positional
            <span key={i}>{p.value}</span>
          ),
        )}
      </Box>
    </Box>
  );
}
