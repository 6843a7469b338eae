import { Button, Group, Kbd, Paper, Progress, Stack, Text } from "@mantine/core";
import { useState } from "react";
import { formatNumber } from "../../lib/format";
import { useShortcuts } from "../../lib/shortcuts";
import { type AlignmentRow, useLabelRow } from "./queries";
import { type Label, LabelBadge, RowView } from "./row-view";

/** The guideline SPEC.md gives: at least 30 labelled rows before the statistics mean much. */
export const RECOMMENDED_LABELS = 30;

/** One row at a time: P passes, F fails, S skips, U (or Ctrl/⌘+Z) undoes, arrows move. */
export function Labeller({ criterionId, rows }: { criterionId: string; rows: AlignmentRow[] }) {
  const label = useLabelRow(criterionId);
  const firstOpen = Math.max(
    0,
    rows.findIndex((r) => !r.judgement),
  );
  const [index, setIndex] = useState(firstOpen);
  const [history, setHistory] = useState<{ index: number; rowId: string; before: Label }[]>([]);
  const i = Math.min(index, rows.length - 1);
  const row = rows[i];
  const labelled = rows.filter((r) => r.judgement).length;
  const nextOpen = (from: number) => {
    for (let k = 1; k <= rows.length; k++) {
      const j = (from + k) % rows.length;
      if (!rows[j]!.judgement && j !== from) return j;
    }
    return Math.min(from + 1, rows.length - 1);
  };
  const put = (judgement: "PASS" | "FAIL") => {
    if (!row) return;
    setHistory((h) => [...h, { index: i, rowId: row.id, before: row.judgement }]);
    label.mutate({ rowId: row.id, judgement });
    setIndex(nextOpen(i));
  };
  const next = () => setIndex((n) => Math.min(n + 1, rows.length - 1));
  const previous = () => setIndex((n) => Math.max(0, n - 1));
  const undo = () => {
    const last = history.at(-1);
    if (!last) return;
    setHistory((h) => h.slice(0, -1));
    label.mutate({ rowId: last.rowId, judgement: last.before });
    setIndex(last.index);
  };
  useShortcuts("Labelling", [
    { keys: "p", label: "Label the row PASS, go to the next unlabelled one", handler: () => put("PASS") },
    { keys: "f", label: "Label the row FAIL, go to the next unlabelled one", handler: () => put("FAIL") },
    { keys: "s", label: "Skip to the next row", handler: next },
    { keys: "u", label: "Undo the last label", handler: undo },
    { keys: "mod+z", label: "Undo the last label", handler: undo },
    { keys: "ArrowRight", label: "Next row", handler: next },
    { keys: "ArrowLeft", label: "Previous row", handler: previous },
  ]);
  if (!row) return null;
  return (
    <Stack>
      <Paper withBorder p="sm" radius="md">
        <Group justify="space-between">
          <Text size="sm" data-testid="label-progress">
            {formatNumber(labelled)} of {formatNumber(rows.length)} labelled
            {labelled < RECOMMENDED_LABELS ? ` · label at least ${RECOMMENDED_LABELS} for meaningful statistics` : " · enough for meaningful statistics"}
          </Text>
          <Text size="sm" c="dimmed">
            Row {i + 1} of {rows.length}
          </Text>
        </Group>
        <Progress value={(100 * labelled) / rows.length} mt={6} aria-label="Labelling progress" />
        <Progress value={(100 * Math.min(labelled, RECOMMENDED_LABELS)) / RECOMMENDED_LABELS} mt={4} size="xs" color="gray" aria-label="Towards 30 labels" />
      </Paper>
      <Group justify="space-between">
        <Group gap="xs">
          <Button color="teal.9" onClick={() => put("PASS")} aria-keyshortcuts="p">
            PASS <Kbd ml={6}>P</Kbd>
          </Button>
          <Button color="red.9" onClick={() => put("FAIL")} aria-keyshortcuts="f">
            FAIL <Kbd ml={6}>F</Kbd>
          </Button>
          <Button variant="default" onClick={next} aria-keyshortcuts="s">
            Skip <Kbd ml={6}>S</Kbd>
          </Button>
          <Button variant="default" onClick={undo} disabled={!history.length} aria-keyshortcuts="u">
            Undo <Kbd ml={6}>U</Kbd>
          </Button>
        </Group>
        <Group gap="xs">
          <Text size="sm">This row:</Text>
          <LabelBadge label={row.judgement} />
        </Group>
      </Group>
      <div data-testid="labelling-row" data-row-id={row.id}>
        <RowView row={row} />
      </div>
    </Stack>
  );
}
