import { Anchor, Button, Group, Paper, Table, Text, VisuallyHidden } from "@mantine/core";
import { modals } from "@mantine/modals";
import { notifications } from "@mantine/notifications";
import { Link } from "@tanstack/react-router";
import { useState } from "react";
import { ErrorAlert } from "../../components/error-alert";
import { PageHeader } from "../../components/page-header";
import { formatNumber, formatTime, plural } from "../../lib/format";
import { useCan } from "../../lib/session";
import { errorMessageOf } from "../../lib/trpc";
import { NameModal } from "./name-modal";
import { type Dataset, useDatasets, useDeleteDataset } from "./queries";

export function DatasetsPage() {
  const datasets = useDatasets();
  const canWrite = useCan("member");
  const [editing, setEditing] = useState<{ dataset: Dataset | null } | null>(null);
  const remove = useDeleteDataset();
  const onError = (err: unknown) => notifications.show({ color: "red", title: "Could not delete", message: errorMessageOf(err) });
  const confirmDelete = (d: Dataset) =>
    modals.openConfirmModal({
      title: `Delete ${d.name}?`,
      children: (
        <Text size="sm">
          This deletes the dataset <b>{d.name}</b> and its {plural(d.entryCount, "entry", "entries")}. Fine-tuned models already trained on it keep working. It
          cannot be undone.
        </Text>
      ),
      labels: { confirm: "Delete dataset", cancel: "Cancel" },
      confirmProps: { color: "red" },
      onConfirm: () => remove.mutate({ datasetId: d.id }, { onError }),
    });
  const rows = datasets.data ?? [];
  return (
    <>
      <PageHeader
        mutates="member"
        title="Datasets"
        description="Chat-format training entries, filled from logs, files or by hand, exported as JSONL."
        actions={<Button onClick={() => setEditing({ dataset: null })}>New dataset</Button>}
      />
      <ErrorAlert error={datasets.error} />
      {datasets.data && rows.length === 0 ? (
        <Paper withBorder p="xl" maw={640}>
          <Text fw={600} mb="xs">
            No datasets yet
          </Text>
          <Text size="sm" c="dimmed">
            Create one here, then fill it from the Logs page (select calls, "Add to dataset"), from a JSONL file, or by hand.
          </Text>
        </Paper>
      ) : (
        <Table striped highlightOnHover aria-label="Datasets">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Name</Table.Th>
              <Table.Th ta="right">Entries</Table.Th>
              <Table.Th ta="right">Train</Table.Th>
              <Table.Th ta="right">Test</Table.Th>
              <Table.Th ta="right">Fine-tunes</Table.Th>
              <Table.Th visibleFrom="lg">Updated</Table.Th>
              <Table.Th>
                <VisuallyHidden>Actions</VisuallyHidden>
              </Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.map((d) => (
              <Table.Tr key={d.id} data-testid={`dataset-row-${d.name}`}>
                <Table.Td style={{ overflowWrap: "anywhere" }}>
                  <Anchor renderRoot={(props) => <Link {...props} to="/datasets/$datasetId" params={{ datasetId: d.id }} />}>{d.name}</Anchor>
                </Table.Td>
                <Table.Td ta="right">{formatNumber(d.entryCount)}</Table.Td>
                <Table.Td ta="right">{formatNumber(d.trainCount)}</Table.Td>
                <Table.Td ta="right">{formatNumber(d.testCount)}</Table.Td>
                <Table.Td ta="right">{formatNumber(d.fineTuneCount)}</Table.Td>
                <Table.Td visibleFrom="lg">{formatTime(d.updatedAt)}</Table.Td>
                <Table.Td>
                  {canWrite ? (
                    <Group gap="xs" justify="flex-end" wrap="nowrap">
                      <Button size="xs" variant="default" onClick={() => setEditing({ dataset: d })} aria-label={`Rename ${d.name}`}>
                        Rename
                      </Button>
                      <Button size="xs" variant="light" color="red" onClick={() => confirmDelete(d)} aria-label={`Delete ${d.name}`}>
                        Delete
                      </Button>
                    </Group>
                  ) : null}
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      {editing ? <NameModal key={editing.dataset?.id ?? "new"} dataset={editing.dataset} onClose={() => setEditing(null)} /> : null}
    </>
  );
}
