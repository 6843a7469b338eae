import { Anchor, Button, Table, Text } from "@mantine/core";
import { When } from "../../components/when";
import { RowActions, RowButton } from "../../components/row-actions";
import { Link } from "@tanstack/react-router";
import { useState } from "react";
import { ACTIONS, DataTable, EmptyCard, right } from "../../components/data-table";
import { ConfirmDelete } from "../../components/confirm-delete";
import { PageHeader } from "../../components/page-header";
import { formatNumber, plural } from "../../lib/format";
import { useCan } from "../../lib/session";
import { NameModal } from "./name-modal";
import { type Dataset, useDatasets, useDeleteDataset } from "./queries";

export function DatasetsPage() {
  const datasets = useDatasets();
  const canWrite = useCan("member");
  const [editing, setEditing] = useState<{ dataset: Dataset | null } | null>(null);
  const remove = useDeleteDataset();
  const [deleting, setDeleting] = useState<Dataset | null>(null);
  return (
    <>
      <PageHeader
        mutates="member"
        title="Datasets"
        description="Chat-format training entries, filled from logs, files or by hand, exported as JSONL."
        actions={<Button onClick={() => setEditing({ dataset: null })}>New dataset</Button>}
      />
      <DataTable
        label="Datasets"
        striped
        highlightOnHover
        columns={["Name", ...right("Entries", "Train", "Test", "Fine-tunes"), { label: "Updated", visibleFrom: "lg" }, ACTIONS]}
        query={datasets}
        emptyState={
          <EmptyCard title="No datasets yet">
            Create one here, then fill it from the Logs page (select calls, "Add to dataset"), from a JSONL file, or by hand.
          </EmptyCard>
        }
        row={(d) => (
          <Table.Tr key={d.id} data-testid={`dataset-row-${d.name}`}>
            <Table.Td style={{ overflowWrap: "anywhere" }}>
              <Anchor renderRoot={(props) => <Link {...props} to="/datasets/$datasetId" params={{ datasetId: d.id }} />}>{d.name}</Anchor>
            </Table.Td>
            <Table.Td ta="right">{formatNumber(d.entryCount)}</Table.Td>
            <Table.Td ta="right">{formatNumber(d.trainCount)}</Table.Td>
            <Table.Td ta="right">{formatNumber(d.testCount)}</Table.Td>
            <Table.Td ta="right">{formatNumber(d.fineTuneCount)}</Table.Td>
            <Table.Td visibleFrom="lg">
              <When value={d.updatedAt} />
            </Table.Td>
            <Table.Td>
              {canWrite ? (
                <RowActions deleteLabel={`Delete ${d.name}`} onDelete={() => setDeleting(d)}>
                  <RowButton label={`Rename ${d.name}`} onClick={() => setEditing({ dataset: d })}>
                    Rename
                  </RowButton>
                </RowActions>
              ) : null}
            </Table.Td>
          </Table.Tr>
        )}
      />
      <ConfirmDelete
        target={deleting}
        title={`Delete ${deleting?.name ?? ""}?`}
        confirmLabel="Delete dataset"
        onClose={() => setDeleting(null)}
        onConfirm={(t) => remove.mutate({ datasetId: t.id }, { onSuccess: () => setDeleting(null) })}
        mutation={remove}
        errorTitle="Could not delete"
      >
        <Text size="sm">
          This deletes the dataset <b>{deleting?.name}</b> and its {plural(deleting?.entryCount ?? 0, "entry", "entries")}. Fine-tuned models already trained on
          it keep working. It cannot be undone.
        </Text>
      </ConfirmDelete>
      {editing ? <NameModal key={editing.dataset?.id ?? "new"} dataset={editing.dataset} onClose={() => setEditing(null)} /> : null}
    </>
  );
}
