import { Button, Group, Paper, Progress, Text } from "@mantine/core";
import { MayButton } from "../../components/may-button";
import { useState } from "react";
import { formatNumber } from "../../lib/format";
import { AddToDatasetModal } from "./add-to-dataset-modal";
import type { Selection } from "./queries";
import { IDS_PER_CALL, useJsonlExport } from "./queries";
import type { LogFilterInput } from "./search";
import { TagModal } from "./tag-modal";

const chunk = <T,>(xs: T[], n: number): T[][] => {
  const out: T[][] = [];
  for (let i = 0; i < xs.length; i += n) out.push(xs.slice(i, i + n));
  return out;
};

/** The filters a selection stands for: the whole filter, or the chosen ids (in batches). */
export function selectionFilters(selection: Selection, filter: LogFilterInput): LogFilterInput[] {
  if (selection.allMatching) return [filter];
  return chunk([...selection.ids], IDS_PER_CALL).map((ids) => ({ ids }));
}

/** "1 log", "about 2.3M logs". */
export const logCountText = (c: { count: number; exact: boolean }) => `${c.exact ? "" : "about "}${formatNumber(c.count)} log${c.count === 1 ? "" : "s"}`;

type Props = {
  selection: Selection;
  selectedCount: { count: number; exact: boolean };
  matching: { count: number; exact: boolean } | undefined;
  loaded: number;
  filter: LogFilterInput;
  onSelectAllMatching(): void;
  onClear(): void;
};

export function ExportProgress({ progress }: { progress: { done: number; total: number } | null }) {
  if (!progress) return null;
  return (
    <Progress
      mt="xs"
      value={progress.total ? (100 * progress.done) / progress.total : 0}
      aria-label={`Exporting: ${progress.done} of ${progress.total}`}
      animated
    />
  );
}

/** What can be done with the selected logs: add to a dataset, tag, export. */
export function BulkActions({ selection, selectedCount, matching, loaded, filter, onSelectAllMatching, onClear }: Props) {
  const [adding, setAdding] = useState(false);
  const [tagMode, setTagMode] = useState<"set" | "remove" | null>(null);
  const filters = selectionFilters(selection, filter);
  const countText = logCountText(selectedCount);
  const jsonl = useJsonlExport();

  return (
    <Paper withBorder p="xs" mb="xs" role="region" aria-label="Bulk actions">
      <Group gap="xs" justify="space-between">
        <Group gap="xs">
          <Text size="sm" fw={600} data-testid="selection-count">
            {countText} selected
          </Text>
          {!selection.allMatching && matching && matching.count > selection.ids.size ? (
            <Button size="compact-sm" variant="subtle" onClick={onSelectAllMatching}>
              Select all {matching.exact ? "" : "about "}
              {formatNumber(matching.count)} matching the filter
            </Button>
          ) : null}
          {selection.allMatching && loaded < (matching?.count ?? 0) ? (
            <Text size="xs" c="dimmed">
              (including logs not loaded yet)
            </Text>
          ) : null}
          <Button size="compact-sm" variant="subtle" color="gray" onClick={onClear}>
            Clear selection
          </Button>
        </Group>
        <Group gap="xs">
          <MayButton may="datasets.importLogs" size="xs" onClick={() => setAdding(true)}>
            Add to dataset
          </MayButton>
          <MayButton may="logs.setTags" size="xs" variant="default" onClick={() => setTagMode("set")}>
            Set tag
          </MayButton>
          <MayButton may="logs.setTags" size="xs" variant="default" onClick={() => setTagMode("remove")}>
            Remove tag
          </MayButton>
          <Button size="xs" variant="default" onClick={() => void jsonl.run(filters, selectedCount.count)} loading={jsonl.progress !== null}>
            Export JSONL
          </Button>
        </Group>
      </Group>
      <ExportProgress progress={jsonl.progress} />
      <AddToDatasetModal opened={adding} onClose={() => setAdding(false)} filters={filters} count={countText} />
      <TagModal mode={tagMode} onClose={() => setTagMode(null)} filters={filters} count={countText} />
    </Paper>
  );
}
