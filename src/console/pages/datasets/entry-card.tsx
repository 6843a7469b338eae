import { Badge, Button, Checkbox, Group, Paper, Stack, Text } from "@mantine/core";
import { When } from "../../components/when";

import { Message, toolNamesOf } from "../logs/conversation";
import { systemPromptOf } from "./entry-preview";
import type { Entry } from "./queries";
import { RelabelReview } from "./quality";

/**
 * The conversation view's role badges (teal on pale teal for assistant) and its orange "tool call"
 * outline badges fall short of AA contrast in the light theme: in entry cards their words are
 * drawn in the text colour (the word carries the meaning, the colour only repeats it).
 */
export const ENTRY_CARD_CSS = `.hone-entry-card [data-testid="role"][data-variant="light"],
.hone-entry-card [data-testid="tool-call"] .mantine-Badge-root[data-variant="outline"] { color: var(--mantine-color-text); }`;

export const SOURCE_LABELS: Record<string, string> = { log: "from a log", upload: "uploaded", manual: "by hand / API" };

type Verdict = Entry["verdicts"][number];
const verdictWord = (v: Verdict) => v.judgement ?? "ERROR";
const VERDICT_COLORS: Record<string, string> = { PASS: "teal", FAIL: "red", ERROR: "gray" };

/** "name: PASS" badges: the criterion's name and the word, the colour only repeating it. */
export function VerdictBadges({ verdicts, names, size = "sm" }: { verdicts: Verdict[]; names: Map<string, string>; size?: "xs" | "sm" }) {
  return verdicts.map((v) => (
    <Badge key={v.criterionId} size={size} variant="dot" color={VERDICT_COLORS[verdictWord(v)]} tt="none" title={v.explanation ?? v.error ?? undefined}>
      {names.get(v.criterionId) ?? v.criterionId.slice(0, 14)}: {verdictWord(v)}
    </Badge>
  ));
}

export function SplitBadge({ split }: { split: string }) {
  return (
    <Badge variant="light" color={split === "TRAIN" ? "indigo" : "grape"}>
      {split}
    </Badge>
  );
}

/**
 * An entry as a conversation with its split, source and verdicts. With `sharedSystem`, a first
 * system message equal to it is left out (the page shows it once above the list).
 */
export function EntryCard({
  entry,
  criterionNames,
  sharedSystem,
  selected,
  onSelect,
  onEdit,
}: {
  entry: Entry;
  criterionNames: Map<string, string>;
  sharedSystem?: string | null;
  selected?: boolean;
  onSelect?(on: boolean, shift: boolean): void;
  onEdit?(): void;
}) {
  const all = entry.messages as unknown[];
  const hideSystem = sharedSystem != null && systemPromptOf(all) === sharedSystem;
  const messages = hideSystem ? all.slice(1) : all;
  const toolNames = toolNamesOf(all);
  return (
    <Paper withBorder p="sm" radius="md" data-testid="entry" data-entry-id={entry.id} className="hone-entry-card">
      <Group justify="space-between" mb="xs" wrap="nowrap" align="flex-start">
        <Group gap="xs">
          {onSelect ? (
            <Checkbox
              aria-label={`Select entry ${entry.id}`}
              checked={selected ?? false}
              onChange={(e) => onSelect(e.currentTarget.checked, (e.nativeEvent as MouseEvent).shiftKey)}
            />
          ) : null}
          <SplitBadge split={entry.split} />
          <Badge variant="outline" color="gray" tt="none">
            {SOURCE_LABELS[entry.source] ?? entry.source}
          </Badge>
          <VerdictBadges verdicts={entry.verdicts} names={criterionNames} />
          <Text size="xs" c="dimmed">
            <When value={entry.createdAt} />
          </Text>
        </Group>
        {onEdit ? (
          <Button size="xs" variant="default" onClick={onEdit} aria-label={`Edit entry ${entry.id}`}>
            Edit
          </Button>
        ) : null}
      </Group>
      <Stack gap={6}>
        {entry.originalMessages ? <RelabelReview entry={entry} /> : null}
        {hideSystem ? (
          <Text size="xs" c="dimmed" data-testid="system-shared-note">
            System prompt: the shared one, shown above the list.
          </Text>
        ) : null}
        {messages.map((m, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: messages have no ids; their order is their identity
          <Message key={i} message={m} scope={`${entry.id}-${i}`} toolNames={toolNames} />
        ))}
        {entry.tools?.length ? (
          <Text size="xs" c="dimmed">
            Tools: {(entry.tools as { function?: { name?: string } }[]).map((t) => t.function?.name ?? "?").join(", ")}
          </Text>
        ) : null}
      </Stack>
    </Paper>
  );
}
