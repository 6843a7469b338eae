import { Button, Group, Modal, MultiSelect, NumberInput, Stack, Table, Text, TextInput } from "@mantine/core";
import { useForm } from "@mantine/form";
import { useState } from "react";
import { ConfirmDelete } from "../../components/confirm-delete";
import { ACTIONS, DataTable } from "../../components/data-table";
import { FormActions } from "../../components/form-actions";
import { PageHeader } from "../../components/page-header";
import { formatNumber } from "../../lib/format";
import { type OnlineEval, useCreateOnlineEval, useDeleteOnlineEval, useOnlineEvals, useUpdateOnlineEval } from "./online-evals-queries";
import { useMonitorChoices } from "./queries";
import { criterionNamer, NameAndStatus, pct, RowControls } from "./status-controls";

type Values = { model: string; criteria: string[]; samplePct: number | string; alertPct: number | string; alertMinJudged: number | string };

function OnlineEvalModal({ opened, onClose }: { opened: boolean; onClose(): void }) {
  const { criteria } = useMonitorChoices(opened);
  const form = useForm<Values>({
    mode: "controlled",
    initialValues: { model: "", criteria: [], samplePct: 10, alertPct: "", alertMinJudged: 20 },
    validate: {
      model: (v) => (v.trim() ? null : "Name the model, as your application calls it"),
      criteria: (v) => (v.length >= 1 && v.length <= 3 ? null : "Choose 1 to 3 criteria"),
      samplePct: (v) => (Number(v) > 0 && Number(v) <= 100 ? null : "Between 0 and 100 (above 0)"),
      alertPct: (v) => (v === "" || (Number(v) > 0 && Number(v) <= 100) ? null : "Between 0 and 100, or empty for no alert"),
    },
  });
  const close = () => {
    onClose();
    form.reset();
    create.reset();
  };
  const create = useCreateOnlineEval(() => close());
  const submit = form.onSubmit((v) =>
    create.mutate({
      model: v.model.trim(),
      criteria: v.criteria,
      sampleRate: Number(v.samplePct) / 100,
      ...(v.alertPct === "" ? {} : { alertBelow: Number(v.alertPct) / 100, alertMinJudged: Number(v.alertMinJudged) || 20 }),
    }),
  );
  return (
    <Modal opened={opened} onClose={close} title="New online evaluation" size="lg">
      <form onSubmit={submit}>
        <Stack>
          <TextInput label="Model" placeholder="gpt-4o-mini, anthropic:claude-sonnet-4-5, hone:my-fine-tune" data-autofocus {...form.getInputProps("model")} />
          <MultiSelect
            label="Criteria"
            placeholder="a call passes when every one passes"
            data={(criteria.data ?? []).map((c) => ({ value: c.id, label: c.name }))}
            maxValues={3}
            comboboxProps={{ withinPortal: true }}
            {...form.getInputProps("criteria")}
          />
          <Group grow align="flex-start">
            <NumberInput label="Sample (% of calls)" min={0.1} max={100} decimalScale={2} suffix="%" {...form.getInputProps("samplePct")} />
            <NumberInput
              label="Alert below (pass rate)"
              placeholder="no alert"
              min={1}
              max={100}
              decimalScale={1}
              suffix="%"
              {...form.getInputProps("alertPct")}
            />
            <NumberInput
              label="after judging (calls in an hour)"
              min={1}
              max={10000}
              disabled={form.values.alertPct === ""}
              {...form.getInputProps("alertMinJudged")}
            />
          </Group>
          <Text size="xs" c="dimmed">
            Each sampled answer is judged after it was sent: the application never waits for it. The alert goes to the project's webhook (Limits page), at most
            once an hour.
          </Text>
          <FormActions form={form} label="Start evaluating" mutation={create} errorTitle="The online evaluation could not be saved" onCancel={close} />
        </Stack>
      </form>
    </Modal>
  );
}

/** The project's online evaluations: which model, judged how, and its last 24 hours' pass rate. */
export function OnlineEvalsSection() {
  const evals = useOnlineEvals();
  const { criteria } = useMonitorChoices(true);
  const update = useUpdateOnlineEval();
  const [creating, setCreating] = useState(false);
  const [deleting, setDeleting] = useState<OnlineEval | null>(null);
  const remove = useDeleteOnlineEval(() => setDeleting(null));
  const criterionName = criterionNamer(criteria);
  return (
    <Stack gap="xs" mt="xl">
      <PageHeader
        order={3}
        mb={0}
        mutates="member"
        title="Online evaluation"
        description="A share of a model's production calls judged by criteria, off the answer's path. Routes judge theirs in their own settings; every pass rate is on the Usage page."
        actions={
          <Button variant="default" onClick={() => setCreating(true)}>
            New online evaluation
          </Button>
        }
      />
      <DataTable
        label="Online evaluations"
        testId="online-evals-table"
        verticalSpacing="sm"
        minWidth={800}
        columns={["Model", "Judged by", "Alert", "Last 24 hours", ACTIONS]}
        query={evals}
        error={update.error}
        empty="No model is evaluated online yet."
        row={(e) => (
          <Table.Tr key={e.id} data-online-eval={e.model} data-status={e.status}>
            <Table.Td>
              <NameAndStatus name={e.model} status={e.status} />
              <Text size="xs" c="dimmed">
                {e.sampleRate < 1 ? `${pct(e.sampleRate)} of calls` : "every call"}
              </Text>
            </Table.Td>
            <Table.Td>
              <Text size="sm">{e.criteria.map(criterionName).join(", ")}</Text>
            </Table.Td>
            <Table.Td>
              <Text size="sm">{e.alertBelow === null ? "–" : `below ${pct(e.alertBelow)} (${formatNumber(e.alertMinJudged)} judged)`}</Text>
            </Table.Td>
            <Table.Td data-judged={e.judged}>
              <Text size="sm" fw={600} c={e.passRate !== null && e.alertBelow !== null && e.passRate < e.alertBelow ? "red" : undefined}>
                {e.passRate === null ? "–" : `${pct(e.passRate)} passed`}
              </Text>
              <Text size="xs" c="dimmed">
                {formatNumber(e.judged)} judged
              </Text>
            </Table.Td>
            <Table.Td>
              <RowControls
                of={`the evaluation of ${e.model}`}
                status={e.status}
                update={{ isPending: update.isPending, busy: update.variables?.id === e.id }}
                onToggle={(status) => update.mutate({ id: e.id, status })}
                onDelete={() => setDeleting(e)}
              />
            </Table.Td>
          </Table.Tr>
        )}
      />
      <OnlineEvalModal opened={creating} onClose={() => setCreating(false)} />
      <ConfirmDelete
        target={deleting}
        title={`Stop evaluating ${deleting?.model ?? ""}?`}
        confirmLabel="Delete online evaluation"
        onClose={() => setDeleting(null)}
        onConfirm={(t) => remove.mutate({ id: t.id })}
        mutation={remove}
      >
        <Text size="sm">Its calls are no longer judged. The verdicts it gave stay in the pass rates.</Text>
      </ConfirmDelete>
    </Stack>
  );
}
