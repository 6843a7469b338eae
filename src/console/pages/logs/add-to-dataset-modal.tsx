import { Alert, Autocomplete, Button, Group, List, Modal, Stack, Text } from "@mantine/core";
import { StackForm } from "../../components/inline-form";
import { useForm } from "@mantine/form";
import { notifications } from "@mantine/notifications";
import { Link } from "@tanstack/react-router";
import { ErrorAlert } from "../../components/error-alert";
import { formatNumber, plural } from "../../lib/format";
import { useAddToDataset, useDatasetChoices } from "./queries";
import type { LogFilterInput } from "./search";

/**
 * Adds logs (a selection, a whole filter, or the one log of the drawer) to an existing dataset or
 * a new one, then says what came in: entries created, duplicates skipped, logs that could not be.
 */
export function AddToDatasetModal({ opened, onClose, filters, count }: { opened: boolean; onClose(): void; filters: LogFilterInput[]; count: string }) {
  const datasets = useDatasetChoices(opened);
  const add = useAddToDataset();
  const form = useForm({
    mode: "controlled",
    initialValues: { name: "" },
    validate: { name: (v) => (v.trim() ? null : "Choose a dataset or type a new name") },
  });
  const name = form.values.name.trim();
  const existing = datasets.data?.find((d) => d.name === name) ?? null;
  const result = add.data;

  const close = () => {
    onClose();
    add.reset();
    form.reset();
  };
  const submit = form.onSubmit(({ name: typed }) =>
    add.mutate(
      { filters, existing: existing ? { id: existing.id, name: existing.name } : null, name: typed.trim() },
      {
        onSuccess: (r) =>
          notifications.show({ color: "teal", title: `Added to ${r.dataset.name}`, message: `${plural(r.entriesCreated, "entry", "entries")} created` }),
      },
    ),
  );

  return (
    <Modal opened={opened} onClose={close} title="Add to dataset" size="lg">
      {result ? (
        <Stack data-testid="import-result">
          <Text>
            Imported into <b>{result.dataset.name}</b>:
          </Text>
          <List>
            <List.Item>
              <b>{formatNumber(result.entriesCreated)}</b> {result.entriesCreated === 1 ? "entry" : "entries"} created
            </List.Item>
            <List.Item>
              <b>{formatNumber(result.duplicatesSkipped)}</b> {result.duplicatesSkipped === 1 ? "duplicate" : "duplicates"} skipped
            </List.Item>
            <List.Item>
              <b>{formatNumber(result.invalidLogs)}</b> invalid {result.invalidLogs === 1 ? "log" : "logs"}
            </List.Item>
          </List>
          {result.errors.length ? (
            <Alert color="yellow" title="Logs that could not become entries">
              <List size="sm">
                {result.errors.slice(0, 10).map((e) => (
                  <List.Item key={e.logId}>
                    <Text span ff="monospace" size="xs">
                      {e.logId}
                    </Text>
                    : {e.message}
                  </List.Item>
                ))}
              </List>
            </Alert>
          ) : null}
          <Group justify="space-between">
            <Button renderRoot={(props) => <Link {...props} to="/datasets/$datasetId" params={{ datasetId: result.dataset.id }} />} variant="default">
              Open {result.dataset.name}
            </Button>
            <Button onClick={close}>Done</Button>
          </Group>
        </Stack>
      ) : (
        <StackForm onSubmit={submit}>
          <Text size="sm">
            {count} selected. Only successful calls (status 200) with a request and an answer become entries; content already in the dataset is skipped.
          </Text>
          <Autocomplete
            label="Dataset"
            description="Choose an existing dataset or type the name of a new one"
            data={(datasets.data ?? []).map((d) => d.name)}
            placeholder="Dataset name"
            required
            data-autofocus
            comboboxProps={{ withinPortal: true }}
            {...form.getInputProps("name")}
          />
          {name ? (
            <Text size="xs" c="dimmed">
              {existing ? "Adds to the existing dataset." : `Creates a new dataset "${name}".`}
            </Text>
          ) : null}
          <ErrorAlert error={add.error} title="Could not add to the dataset" />
          <Button type="submit" loading={add.isPending} disabled={!name}>
            {existing ? "Add to dataset" : "Create dataset and add"}
          </Button>
        </StackForm>
      )}
    </Modal>
  );
}
