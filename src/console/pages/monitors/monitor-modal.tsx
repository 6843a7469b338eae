import { Autocomplete, Checkbox, Group, Modal, NumberInput, Select, Stack, Text, TextInput } from "@mantine/core";
import { SegmentedField } from "../../components/segmented-field";
import { FormActions } from "../../components/form-actions";
import { useForm } from "@mantine/form";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useTRPC } from "../../lib/trpc";
import { describeFilter } from "./describe-filter";
import { type MonitorFilter, useBackfillMonitor, useCreateMonitor, useMonitorChoices } from "./queries";

type Values = {
  name: string;
  dataset: string;
  model: string;
  tag: string;
  search: string;
  criterionId: string | null;
  keepOn: "PASS" | "FAIL";
  samplePct: number | string;
  testPct: number | string;
  backfill: boolean;
};

/** The filter the simple fields describe (the Monitors page's own form). */
function typedFilter(v: Values): MonitorFilter {
  const f: MonitorFilter = {};
  if (v.model.trim()) f.model = v.model.trim();
  if (v.search.trim()) f.search = v.search.trim();
  const i = v.tag.indexOf("=");
  if (i > 0) f.tags = [{ key: v.tag.slice(0, i).trim(), equals: v.tag.slice(i + 1).trim() }];
  return f;
}

/**
 * Saves a monitor: which calls (the Logs page's filter, or a model, tag and text typed here), an
 * optional criterion and the verdict that keeps a call, the sample, the dataset (an existing one or
 * a new name) and the TEST share. `backfillFrom`: the start of the Logs page's time range, offered
 * as a backfill of the calls already made.
 */
export function MonitorModal({
  opened,
  onClose,
  filter,
  backfillFrom,
}: {
  opened: boolean;
  onClose(): void;
  filter: MonitorFilter | null;
  backfillFrom?: string | null;
}) {
  const trpc = useTRPC();
  const { datasets, criteria } = useMonitorChoices(opened);
  const queryClient = useQueryClient();
  const createDataset = useMutation(
    trpc.datasets.create.mutationOptions({ onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.datasets.list.queryKey() }) }),
  );
  const backfill = useBackfillMonitor(() => {});
  const create = useCreateMonitor(() => {});
  const form = useForm<Values>({
    mode: "controlled",
    initialValues: { name: "", dataset: "", model: "", tag: "", search: "", criterionId: null, keepOn: "PASS", samplePct: 100, testPct: 20, backfill: true },
    validate: {
      name: (v) => (v.trim() ? null : "Name the monitor"),
      dataset: (v) => (v.trim() ? null : "Choose a dataset or type a new name"),
      tag: (v) => (v.trim() && !/^[^=]+=/.test(v) ? "Write the tag as key=value" : null),
      samplePct: (v) => (Number(v) > 0 && Number(v) <= 100 ? null : "Between 0 and 100 (above 0)"),
      testPct: (v) => (Number(v) >= 0 && Number(v) <= 100 ? null : "Between 0 and 100"),
    },
  });
  const close = () => {
    onClose();
    form.reset();
    create.reset();
    createDataset.reset();
  };
  const pending = create.isPending || createDataset.isPending || backfill.isPending;
  const submit = form.onSubmit(async (v) => {
    const typed = v.dataset.trim();
    const existing = datasets.data?.find((d) => d.name === typed);
    const datasetId = existing?.id ?? (await createDataset.mutateAsync({ name: typed })).id;
    const m = await create.mutateAsync({
      name: v.name.trim(),
      datasetId,
      filter: filter ?? typedFilter(v),
      criterionId: v.criterionId,
      keepOn: v.keepOn,
      sampleRate: Number(v.samplePct) / 100,
      testFraction: Number(v.testPct) / 100,
    });
    if (backfillFrom && v.backfill) await backfill.mutateAsync({ id: m.id, from: new Date(backfillFrom) });
    close();
  });

  return (
    <Modal opened={opened} onClose={close} title="New monitor" size="lg">
      <form onSubmit={submit}>
        <Stack>
          <TextInput label="Name" placeholder="Refund answers that fail the policy" data-autofocus {...form.getInputProps("name")} />
          {filter ? (
            <Stack gap={2}>
              <Text size="sm" fw={500}>
                Calls
              </Text>
              <Text size="sm" data-testid="monitor-filter">
                {describeFilter(filter)}
              </Text>
              <Text size="xs" c="dimmed">
                The Logs page's filters, without its time range: the monitor watches the calls to come.
              </Text>
            </Stack>
          ) : (
            <Group grow align="flex-start">
              <TextInput label="Model" placeholder="any" {...form.getInputProps("model")} />
              <TextInput label="Tag" placeholder="key=value" {...form.getInputProps("tag")} />
              <TextInput label="Text" placeholder="in the request or answer" {...form.getInputProps("search")} />
            </Group>
          )}
          <Group grow align="flex-start">
            <Select
              label="LLM filter (a criterion)"
              placeholder="none: keep every matching call"
              clearable
              data={(criteria.data ?? []).map((c) => ({ value: c.id, label: c.name }))}
              {...form.getInputProps("criterionId")}
            />
            <SegmentedField
              label="Keep"
              disabled={!form.values.criterionId}
              data={[
                { value: "PASS", label: "Passing calls" },
                { value: "FAIL", label: "Failures" },
              ]}
              {...form.getInputProps("keepOn")}
            />
          </Group>
          <Group grow align="flex-start">
            <NumberInput label="Sample (% of calls)" min={0.1} max={100} decimalScale={2} suffix="%" {...form.getInputProps("samplePct")} />
            <NumberInput label="TEST split (% of entries)" min={0} max={100} decimalScale={2} suffix="%" {...form.getInputProps("testPct")} />
          </Group>
          <Autocomplete
            label="Add to dataset"
            placeholder="Choose one, or type a new name"
            data={(datasets.data ?? []).map((d) => d.name)}
            {...form.getInputProps("dataset")}
          />
          {backfillFrom ? (
            <Checkbox
              label={`Also examine the calls already made since ${new Date(backfillFrom).toLocaleString()}`}
              {...form.getInputProps("backfill", { type: "checkbox" })}
            />
          ) : null}
          <FormActions
            form={form}
            label="Save monitor"
            error={create.error ?? createDataset.error ?? backfill.error}
            errorTitle="The monitor could not be saved"
            loading={pending}
            onCancel={close}
          />
        </Stack>
      </form>
    </Modal>
  );
}
