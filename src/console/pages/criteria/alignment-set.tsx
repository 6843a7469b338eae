import { Button, Group, Paper, SegmentedControl, Stack, Text } from "@mantine/core";
import { useState } from "react";
import { ErrorAlert } from "../../components/error-alert";
import { ImportModal } from "./import-modal";
import { Labeller } from "./labeller";
import { useAlignmentRows } from "./queries";
import { RowsTable } from "./rows-table";

/** The rows a criterion is aligned on: labelled one by one (by keyboard), or reviewed in a table. */
export function AlignmentSetTab({ criterionId, view, setView }: { criterionId: string; view: "label" | "table"; setView(v: "label" | "table"): void }) {
  const rows = useAlignmentRows(criterionId);
  const [importing, setImporting] = useState(false);
  const list = rows.data ?? [];
  return (
    <Stack>
      <Group justify="space-between">
        <SegmentedControl
          aria-label="View"
          data={[
            { value: "label", label: "Label one by one" },
            { value: "table", label: "Review all" },
          ]}
          value={view}
          onChange={(v) => setView(v as "label" | "table")}
        />
        <Button onClick={() => setImporting(true)}>Add rows</Button>
      </Group>
      <ErrorAlert error={rows.error} />
      {rows.data && list.length === 0 ? (
        <Paper withBorder p="xl" maw={640}>
          <Text fw={600}>The alignment set is empty</Text>
          <Text size="sm" c="dimmed">
            Add examples of outputs (upload JSONL, or take logged calls or dataset entries), label each PASS or FAIL, then run the criterion against your
            labels.
          </Text>
        </Paper>
      ) : null}
      {list.length ? view === "label" ? <Labeller criterionId={criterionId} rows={list} /> : <RowsTable criterionId={criterionId} rows={list} /> : null}
      {importing ? <ImportModal criterionId={criterionId} onClose={() => setImporting(false)} /> : null}
    </Stack>
  );
}
