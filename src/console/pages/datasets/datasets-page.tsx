import { Anchor, Button, Group, Modal, Paper, Stack, Table, Text, TextInput } from "@mantine/core";
import { modals } from "@mantine/modals";
import { notifications } from "@mantine/notifications";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import { useState } from "react";
import { ErrorAlert } from "../../components/error-alert";
import { PageHeader } from "../../components/page-header";
import { formatNumber, formatTime } from "../../lib/format";
import { errorMessageOf, type RouterOutputs, useTRPC } from "../../lib/trpc";

type Dataset = RouterOutputs["datasets"]["list"][number];

/** Create (no dataset) or rename (a dataset): one name field. */
function NameModal({ dataset, opened, onClose }: { dataset: Dataset | null; opened: boolean; onClose(): void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [name, setName] = useState(dataset?.name ?? "");
  const done = async (message: string) => {
    await queryClient.invalidateQueries({ queryKey: trpc.datasets.list.queryKey() });
    notifications.show({ message });
    onClose();
  };
  const create = useMutation(trpc.datasets.create.mutationOptions({ onSuccess: (d) => done(`Created ${d.name}`) }));
  const rename = useMutation(trpc.datasets.rename.mutationOptions({ onSuccess: (d) => done(`Renamed to ${d.name}`) }));
  const pending = create.isPending || rename.isPending;
  return (
    <Modal opened={opened} onClose={onClose} title={dataset ? `Rename ${dataset.name}` : "New dataset"}>
      <Stack
        component="form"
        onSubmit={(e) => {
          e.preventDefault();
          if (dataset) rename.mutate({ id: dataset.id, name });
          else create.mutate({ name });
        }}
      >
        <TextInput label="Dataset name" value={name} onChange={(e) => setName(e.currentTarget.value)} required data-autofocus />
        <ErrorAlert error={create.error ?? rename.error} />
        <Button type="submit" loading={pending}>
          {dataset ? "Rename" : "Create dataset"}
        </Button>
      </Stack>
    </Modal>
  );
}

export function DatasetsPage() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const datasets = useQuery(trpc.datasets.list.queryOptions());
  const [editing, setEditing] = useState<{ dataset: Dataset | null } | null>(null);
  const remove = useMutation(
    trpc.datasets.delete.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.datasets.list.queryKey() }),
      onError: (err) => notifications.show({ color: "red", title: "Could not delete", message: errorMessageOf(err) }),
    }),
  );
  const confirmDelete = (d: Dataset) =>
    modals.openConfirmModal({
      title: `Delete ${d.name}?`,
      children: (
        <Text size="sm">
          This deletes the dataset <b>{d.name}</b> and its {formatNumber(d.entryCount)} entries. Fine-tuned models already trained on it keep working. It cannot
          be undone.
        </Text>
      ),
      labels: { confirm: "Delete dataset", cancel: "Cancel" },
      confirmProps: { color: "red" },
      onConfirm: () => remove.mutate({ datasetId: d.id }),
    });
  const rows = datasets.data ?? [];
  return (
    <>
      <PageHeader
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
              <Table.Th>Updated</Table.Th>
              <Table.Th />
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.map((d) => (
              <Table.Tr key={d.id} data-testid={`dataset-row-${d.name}`}>
                <Table.Td>
                  <Anchor renderRoot={(props) => <Link {...props} to="/datasets/$datasetId" params={{ datasetId: d.id }} />}>{d.name}</Anchor>
                </Table.Td>
                <Table.Td ta="right">{formatNumber(d.entryCount)}</Table.Td>
                <Table.Td ta="right">{formatNumber(d.trainCount)}</Table.Td>
                <Table.Td ta="right">{formatNumber(d.testCount)}</Table.Td>
                <Table.Td ta="right">{formatNumber(d.fineTuneCount)}</Table.Td>
                <Table.Td>{formatTime(d.updatedAt)}</Table.Td>
                <Table.Td>
                  <Group gap="xs" justify="flex-end" wrap="nowrap">
                    <Button size="xs" variant="default" onClick={() => setEditing({ dataset: d })}>
                      Rename
                    </Button>
                    <Button size="xs" variant="light" color="red" onClick={() => confirmDelete(d)} aria-label={`Delete ${d.name}`}>
                      Delete
                    </Button>
                  </Group>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      {editing ? <NameModal key={editing.dataset?.id ?? "new"} dataset={editing.dataset} opened onClose={() => setEditing(null)} /> : null}
    </>
  );
}
