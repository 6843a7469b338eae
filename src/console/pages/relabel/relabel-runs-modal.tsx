import { useCriterionList } from "../../lib/project-lists";
import { Anchor, Badge, Group, Modal, MultiSelect, Stack, Table, Text, TextInput } from "@mantine/core";
import { useForm } from "@mantine/form";
import { Link } from "@tanstack/react-router";
import { DataTable } from "../../components/data-table";
import { FormActions } from "../../components/form-actions";
import { formatCost } from "../../lib/format";
import { useRelabelRuns, useStartRelabelRun } from "./queries";

/** A dataset's relabel runs (each opens its comparison), and a form to start one. */
export function RelabelRunsModal({ datasetId, onClose }: { datasetId: string; onClose(): void }) {
  const runs = useRelabelRuns(datasetId);
  const criteria = useCriterionList();
  const start = useStartRelabelRun(() => form.reset());
  const form = useForm({
    mode: "controlled",
    initialValues: { name: "", model: "", criterionIds: [] as string[] },
    validate: { model: (v) => (v.trim() ? null : "Name the model that writes the new outputs") },
  });
  const submit = form.onSubmit((v) =>
    start.mutate({ datasetId, model: v.model.trim(), name: v.name.trim() || null, criterionIds: v.criterionIds.length ? v.criterionIds : null }),
  );
  return (
    <Modal opened onClose={onClose} title="Relabel runs" size="xl">
      <Stack>
        <Text size="sm" c="dimmed">
          A run has a model write a new output for every entry, judged beside the current one. Nothing changes until you accept outputs; the outputs they
          replace are kept as rejected outputs, the preference pairs a DPO fine-tune trains on.
        </Text>
        <DataTable
          label="Relabel runs"
          testId="relabel-runs"
          columns={["Run", "Status", "Decided", "Cost"]}
          query={runs}
          empty="No runs yet."
          row={(r) => (
            <Table.Tr key={r.id} data-run-name={r.name}>
              <Table.Td>
                <Anchor size="sm" renderRoot={(props) => <Link {...props} to="/relabel/$runId" params={{ runId: r.id }} />}>
                  {r.name}
                </Anchor>
                <Text size="xs" c="dimmed">
                  {r.model}
                  {r.criteria.length ? ` · ${r.criteria.length} criteri${r.criteria.length === 1 ? "on" : "a"}` : ""}
                </Text>
              </Table.Td>
              <Table.Td>
                <Badge variant="light" color={r.status === "DONE" ? "teal" : r.status === "ERROR" ? "red" : "blue"}>
                  {r.status === "DONE" ? "done" : r.status.toLowerCase()}
                </Badge>{" "}
                <Text span size="xs">
                  {r.progress.done}/{r.progress.total}
                </Text>
              </Table.Td>
              <Table.Td>
                <Text size="xs">
                  {r.decisions.accepted} accepted · {r.decisions.rejected} rejected · {r.decisions.undecided} to decide
                </Text>
              </Table.Td>
              <Table.Td>
                <Text size="xs">{formatCost(r.costUsd)}</Text>
              </Table.Td>
            </Table.Tr>
          )}
        />
        <form onSubmit={submit}>
          <Stack gap="xs">
            <Text fw={600} size="sm">
              New run
            </Text>
            <Group grow align="flex-start">
              <TextInput label="Model" placeholder="openai:gpt-4.1" {...form.getInputProps("model")} />
              <TextInput label="Name" placeholder="the model" {...form.getInputProps("name")} />
            </Group>
            <MultiSelect
              label="Judge with"
              placeholder="no criteria"
              data={(criteria.data ?? []).map((c) => ({ value: c.id, label: c.name }))}
              {...form.getInputProps("criterionIds")}
            />
            <FormActions form={form} label="Start run" mutation={start} errorTitle="The run was not started" />
          </Stack>
        </form>
      </Stack>
    </Modal>
  );
}
