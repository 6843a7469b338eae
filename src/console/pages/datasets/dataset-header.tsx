import { Anchor, Button, Paper, Spoiler, Text } from "@mantine/core";
import { Link } from "@tanstack/react-router";
import { MayButton } from "../../components/may-button";
import { PageHeader } from "../../components/page-header";
import { formatNumber, plural } from "../../lib/format";
import type { Dataset } from "./queries";

export type DatasetDialog = "add" | "upload" | "import" | "quality" | "relabel" | "pruning";

/**
 * The dialogs the header opens, in order. "Judge / relabel" stays the same whatever runs (the
 * count is in the line above): a longer label would move the actions after it.
 */
const DIALOGS: [DatasetDialog, string, string | null][] = [
  // The procedure a dialog exists to call (null: it also shows what is there, to anyone).
  ["add", "Add entry", "datasets.addEntries"],
  ["upload", "Upload JSONL", "datasets.importJsonl"],
  ["import", "Import from logs", "datasets.importLogs"],
  ["quality", "Judge / relabel", "datasets.judgeEntries"],
  ["relabel", "Relabel runs", null],
  ["pruning", "Pruning rules", null],
];

/** The dataset's name and counts, and what can be done to it; the actions wrap on a narrow window. */
export function DatasetHeader({
  dataset,
  runningTasks,
  exportProgress,
  onDialog,
  onExport,
}: {
  dataset: Dataset | undefined;
  runningTasks: number;
  exportProgress: number | null;
  onDialog(d: DatasetDialog): void;
  onExport(): void;
}) {
  const d = dataset;
  const open = (dialog: DatasetDialog) => () => onDialog(dialog);
  return (
    <PageHeader
      wrap
      mb="sm"
      title={d?.name ?? "Dataset"}
      testId={d ? "dataset-counts" : undefined}
      description={
        d ? (
          <>
            {plural(d.entryCount, "entry", "entries")} · {formatNumber(d.trainCount)} train · {formatNumber(d.testCount)} test ·{" "}
            {plural(d.fineTuneCount, "fine-tune")} · {runningTasks ? `${plural(runningTasks, "quality task")} running · ` : null}
            <Anchor component={Link} to="/datasets" size="sm" underline="always">
              all datasets
            </Anchor>
          </>
        ) : (
          // The counts' line, held while they load, so nothing below moves when they come.
          <span aria-hidden>…</span>
        )
      }
      actionsTestId="dataset-actions"
      actions={
        // Every action is there from the first paint (Fine-tune disabled until the dataset is known):
        // a late button would push the others aside, and a click aimed at one would land on another.
        <>
          {DIALOGS.map(([dialog, label, may]) =>
            may ? (
              <MayButton key={dialog} may={may} variant="default" size="sm" onClick={open(dialog)}>
                {label}
              </MayButton>
            ) : (
              <Button key={dialog} variant="default" size="sm" onClick={open(dialog)}>
                {label}
              </Button>
            ),
          )}
          <Button variant="default" size="sm" onClick={onExport} loading={exportProgress !== null}>
            {exportProgress !== null ? `Exporting ${formatNumber(exportProgress)}…` : "Export JSONL"}
          </Button>
          {d ? (
            <Button
              size="sm"
              disabled={d.trainCount === 0}
              title={d.trainCount === 0 ? "The dataset has no TRAIN entries to train on" : undefined}
              renderRoot={(props) => <Link {...props} to="/models" search={{ new: 1, datasetId: d.id }} />}
            >
              Fine-tune
            </Button>
          ) : (
            <Button size="sm" disabled>
              Fine-tune
            </Button>
          )}
        </>
      }
    />
  );
}

/** The system prompt the listed (or selected) entries all start with, shown once. */
export function SharedSystemPrompt({ prompt, of }: { prompt: string; of: string }) {
  return (
    <Paper withBorder p="xs" mb="sm" radius="md" data-testid="shared-system-prompt" role="region" aria-label="Shared system prompt">
      <Text size="xs" fw={700} c="dimmed" mb={2}>
        Shared system prompt · {of} all start with it (left out of the entries shown)
      </Text>
      <Spoiler maxHeight={44} showLabel="Show all" hideLabel="Show less">
        <Text size="sm" style={{ whiteSpace: "pre-wrap" }}>
          {prompt}
        </Text>
      </Spoiler>
    </Paper>
  );
}
