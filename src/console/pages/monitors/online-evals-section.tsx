import { Badge, Button, Group, Modal, MultiSelect, NumberInput, Stack, Table, Text, TextInput, Title, VisuallyHidden } from "@mantine/core";
import { useForm } from "@mantine/form";
import { useState } from "react";
import { ErrorAlert } from "../../components/error-alert";
import { formatNumber } from "../../lib/format";
import { useCan } from "../../lib/session";
import { ConfirmModal } from "../settings/confirm-modal";
import { type OnlineEval, useCreateOnlineEval, useDeleteOnlineEval, useOnlineEvals, useUpdateOnlineEval } from "./online-evals-queries";
import { useMonitorChoices } from "./queries";

const pct = (n: number) => `${Math.round(n * 1000) / 10}%`;

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
          <ErrorAlert error={create.error} title="The online evaluation could not be saved" />
          <Group justify="flex-end">
            <Button variant="default" onClick={close}>
              Cancel
            </Button>
            <Button type="submit" loading={create.isPending}>
              Start evaluating
            </Button>
          </Group>
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
  const canChange = useCan("member");
  const list = evals.data ?? [];
  const criterionName = (ref: string) => criteria.data?.find((c) => c.id === ref.split("@")[0])?.name ?? ref;
  return (
    <Stack gap="xs" mt="xl">
      <Group justify="space-between" align="flex-end">
        <Stack gap={2}>
          <Title order={3}>Online evaluation</Title>
          <Text size="sm" c="dimmed">
            A share of a model's production calls judged by criteria, off the answer's path. Routes judge theirs in their own settings; every pass rate is on
            the Usage page.
          </Text>
        </Stack>
        {canChange ? (
          <Button variant="default" onClick={() => setCreating(true)}>
            New online evaluation
          </Button>
        ) : null}
      </Group>
      <ErrorAlert error={evals.error ?? update.error} title="Online evaluations could not be loaded" />
      <Table.ScrollContainer minWidth={800}>
        <Table aria-label="Online evaluations" data-testid="online-evals-table" verticalSpacing="sm">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Model</Table.Th>
              <Table.Th>Judged by</Table.Th>
              <Table.Th>Alert</Table.Th>
              <Table.Th>Last 24 hours</Table.Th>
              <Table.Th>
                <VisuallyHidden>Actions</VisuallyHidden>
              </Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {list.map((e) => (
              <Table.Tr key={e.id} data-online-eval={e.model} data-status={e.status}>
                <Table.Td>
                  <Group gap="xs">
                    <Text size="sm" fw={600}>
                      {e.model}
                    </Text>
                    <Badge size="sm" variant="light" color={e.status === "ACTIVE" ? "teal" : "gray"}>
                      {e.status === "ACTIVE" ? "Active" : "Paused"}
                    </Badge>
                  </Group>
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
                  {canChange ? (
                    <Group gap="xs" justify="flex-end" wrap="nowrap">
                      <Button
                        size="xs"
                        variant="default"
                        aria-label={`${e.status === "ACTIVE" ? "Pause" : "Resume"} the evaluation of ${e.model}`}
                        loading={update.isPending && update.variables?.id === e.id}
                        onClick={() => update.mutate({ id: e.id, status: e.status === "ACTIVE" ? "PAUSED" : "ACTIVE" })}
                      >
                        {e.status === "ACTIVE" ? "Pause" : "Resume"}
                      </Button>
                      <Button size="xs" variant="light" color="red" aria-label={`Delete the evaluation of ${e.model}`} onClick={() => setDeleting(e)}>
                        Delete
                      </Button>
                    </Group>
                  ) : null}
                </Table.Td>
              </Table.Tr>
            ))}
            {evals.isSuccess && list.length === 0 ? (
              <Table.Tr>
                <Table.Td colSpan={5}>
                  <Text c="dimmed" size="sm">
                    No model is evaluated online yet.
                  </Text>
                </Table.Td>
              </Table.Tr>
            ) : null}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      <OnlineEvalModal opened={creating} onClose={() => setCreating(false)} />
      <ConfirmModal
        opened={deleting !== null}
        title={`Stop evaluating ${deleting?.model ?? ""}?`}
        confirmLabel="Delete online evaluation"
        onClose={() => setDeleting(null)}
        onConfirm={() => deleting && remove.mutate({ id: deleting.id })}
        loading={remove.isPending}
        error={remove.error}
      >
        <Text size="sm">Its calls are no longer judged. The verdicts it gave stay in the pass rates.</Text>
      </ConfirmModal>
    </Stack>
  );
}
