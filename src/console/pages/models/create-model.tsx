import { Alert, Button, Group, Modal, MultiSelect, Paper, Select, SimpleGrid, Stack, Text, TextInput } from "@mantine/core";
import { SegmentedField } from "../../components/segmented-field";
import { useForm } from "@mantine/form";
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "../../lib/trpc";
import { useDebouncedValue } from "@mantine/hooks";
import { notifications } from "@mantine/notifications";
import { useNavigate } from "@tanstack/react-router";
import { TRPCClientError } from "@trpc/client";
import { useState } from "react";
import { ErrorAlert } from "../../components/error-alert";
import { formatCompact, formatCost, formatNumber, plural } from "../../lib/format";
import { errorMessageOf } from "../../lib/trpc";
import { type BaseModel, useBaseModels, useCreateModel, useCriterionChoices, useDatasetChoices, useEstimate } from "./queries";

type Values = {
  datasetId: string | null;
  baseModel: string | null;
  slug: string;
  exclude: string[];
  hp: Record<string, string>;
  method: "sft" | "dpo";
  beta: string;
};

// Slug rule of the API, checked as the person types (the server checks it again).
const SLUG = /^[a-z0-9][a-z0-9._-]{0,63}$/;

/** Hyperparameters as the backend takes them: numbers where they are numbers, words (auto, max) as words. */
function hyperparametersOf(hp: Record<string, string>, base: BaseModel | undefined): Record<string, string | number> {
  return Object.fromEntries(
    Object.entries(hp)
      .filter(([name, v]) => v.trim() && base?.hyperparameters.some((h) => h.name === name))
      .map(([name, v]) => [name, Number.isFinite(Number(v)) ? Number(v) : v.trim()]),
  );
}

/** The API's issues under the fields they name (slug, dataset, base model, a hyperparameter). */
function fieldErrorsOf(error: unknown): Record<string, string> {
  const issues = error instanceof TRPCClientError ? ((error.data as { issues?: { message: string; path?: (string | number)[] }[] })?.issues ?? []) : [];
  const out: Record<string, string> = {};
  for (const i of issues) {
    const [head, second, third] = i.path ?? [];
    const field =
      head === "slug" || head === "datasetId"
        ? String(head)
        : head === "excludeFailing"
          ? "exclude"
          : head === "trainingConfig" && second === "baseModel"
            ? "baseModel"
            : head === "trainingConfig" && second === "hyperparameters" && third !== undefined
              ? `hp.${third}`
              : null;
    if (field) out[field] = out[field] ? `${out[field]}; ${i.message}` : i.message;
  }
  return Object.keys(out).length ? out : { form: errorMessageOf(error) };
}

/** The new fine-tune form: dataset (prefilled from the link that opened it), base model, slug, hyperparameters, the estimate. */
export function CreateModel({ datasetId, onClose }: { datasetId?: string; onClose(): void }) {
  const navigate = useNavigate();
  const datasets = useDatasetChoices();
  const catalogue = useBaseModels();
  const criteria = useCriterionChoices();
  const create = useCreateModel();
  const [started, setStarted] = useState(false);
  const form = useForm<Values>({
    initialValues: { datasetId: datasetId ?? null, baseModel: null, slug: "", exclude: [], hp: {}, method: "sft", beta: "" },
    validate: {
      datasetId: (v) => (v ? null : "Choose the dataset to train on"),
      baseModel: (v) => (v ? null : "Choose a base model"),
      slug: (v) => (SLUG.test(v) ? null : "1-64 lowercase letters, digits, dots, dashes or underscores, starting with a letter or digit"),
      beta: (v, all) => (all.method !== "dpo" || v.trim() === "" || (Number(v) > 0 && Number(v) <= 2) ? null : "Above 0 and at most 2"),
    },
  });
  const v = form.values;
  const base = catalogue.data?.find((m) => m.id === v.baseModel);
  const hyperparameters = hyperparametersOf(v.hp, base);
  const [debounced] = useDebouncedValue(JSON.stringify({ datasetId: v.datasetId, baseModel: v.baseModel, hyperparameters, exclude: v.exclude }), 300);
  const input = JSON.parse(debounced) as {
    datasetId: string | null;
    baseModel: string | null;
    hyperparameters: Record<string, string | number>;
    exclude: string[];
  };
  const estimate = useEstimate(
    {
      datasetId: input.datasetId ?? "",
      baseModel: input.baseModel ?? "",
      hyperparameters: input.hyperparameters,
      excludeFailing: input.exclude.length ? input.exclude : null,
    },
    Boolean(input.datasetId && input.baseModel),
  );
  const dataset = datasets.data?.find((d) => d.id === v.datasetId);
  const trpc = useTRPC();
  const pairs = useQuery(trpc.datasets.preferencePairs.queryOptions({ datasetId: v.datasetId ?? "" }, { enabled: v.method === "dpo" && Boolean(dataset) }));
  const unknownDataset = Boolean(v.datasetId && datasets.data && !dataset);
  const submit = form.onSubmit((values) => {
    if (!values.datasetId || !base) return;
    create.mutate(
      {
        datasetId: values.datasetId,
        slug: values.slug,
        excludeFailing: values.exclude.length ? values.exclude : null,
        method: values.method,
        beta: values.method === "dpo" && values.beta.trim() ? Number(values.beta) : null,
        trainingConfig: { provider: base.backend, baseModel: base.id, hyperparameters },
      },
      {
        onSuccess: (m) => {
          setStarted(true);
          notifications.show({ message: `Fine-tune ${m.slug} started` });
          void navigate({ to: "/models/$slug", params: { slug: m.slug } });
        },
        onError: (err) => form.setErrors(fieldErrorsOf(err)),
      },
    );
  });
  // Gone at once when started: the model's page loads behind it.
  if (started) return null;
  return (
    <Modal opened onClose={onClose} closeButtonProps={{ "aria-label": "Close" }} title="New fine-tune" size="lg">
      <form onSubmit={submit}>
        <Stack>
          <Select
            label="Dataset"
            description="Its TRAIN entries are the training data"
            data={(datasets.data ?? []).map((d) => ({ value: d.id, label: `${d.name} (${plural(d.trainCount, "train entry", "train entries")})` }))}
            required
            searchable
            {...form.getInputProps("datasetId")}
          />
          {unknownDataset ? (
            <Alert color="yellow" role="alert">
              The dataset {v.datasetId} is not one of this project's: choose another.
            </Alert>
          ) : null}
          <Select
            label="Base model"
            data={(catalogue.data ?? []).map((m) => ({ value: m.id, label: `${m.id} · ${m.backend}` }))}
            required
            searchable
            {...form.getInputProps("baseModel")}
          />
          {base ? <BaseModelFacts base={base} /> : null}
          <TextInput label="Slug" description="Call it as hone:<slug>. Lowercase letters, digits and dashes." required {...form.getInputProps("slug")} />
          <SegmentedField
            label="Method"
            data={[
              { value: "sft", label: "Supervised" },
              { value: "dpo", label: "Preference (DPO)" },
            ]}
            {...form.getInputProps("method")}
            hint={
              v.method === "dpo"
                ? `Trains on preference pairs: each TRAIN entry's answer against its rejected outputs (from accepted relabels, edits, judged best-of-N calls)${pairs.data ? `: ${plural(pairs.data.pairs, "pair")} in this dataset` : ""}.`
                : "Trains on the TRAIN entries' conversations."
            }
          />
          {v.method === "dpo" ? (
            <TextInput label="Beta" description="DPO's beta (leave empty for the backend's default)" placeholder="0.1" {...form.getInputProps("beta")} />
          ) : null}
          <MultiSelect
            label="Exclude entries that failed"
            description="Entries whose latest verdict of one of these criteria is FAIL are left out"
            data={(criteria.data ?? []).map((c) => ({ value: c.id, label: c.name }))}
            clearable
            {...form.getInputProps("exclude")}
          />
          {base ? (
            <Stack gap={4}>
              <Text size="sm" fw={500}>
                Hyperparameters ({base.backend}; leave empty for the default)
              </Text>
              <SimpleGrid cols={{ base: 1, xs: 2 }} spacing="xs">
                {base.hyperparameters.map((h) => (
                  <TextInput
                    key={h.name}
                    size="xs"
                    label={h.name}
                    description={h.description}
                    placeholder={`default: ${h.default}`}
                    {...form.getInputProps(`hp.${h.name}`)}
                    value={v.hp[h.name] ?? ""}
                  />
                ))}
              </SimpleGrid>
            </Stack>
          ) : null}
          {estimate.data ? (
            <Paper withBorder p="xs" radius="md" data-testid="estimate">
              <Text size="sm" fw={600}>
                About {formatCost(estimate.data.estimatedCostUsd)} to train
              </Text>
              <Text size="sm">
                {plural(estimate.data.entries, "training example")} · {formatNumber(estimate.data.tokensPerEpoch)} tokens an epoch ×{" "}
                {plural(estimate.data.epochs, "epoch")} = {formatNumber(estimate.data.trainingTokens)} training tokens at ${estimate.data.trainingPerMillion}{" "}
                per million
              </Text>
              <Text size="xs" c="dimmed">
                An estimate: {estimate.data.method}. The backend bills its own count.
              </Text>
            </Paper>
          ) : estimate.error ? (
            <ErrorAlert error={estimate.error} title="No estimate" />
          ) : null}
          {dataset && dataset.trainCount === 0 ? (
            <Text size="sm" c="red" role="alert">
              This dataset has no TRAIN entries yet.
            </Text>
          ) : null}
          {form.errors.form ? (
            <Alert color="red" role="alert" title="The fine-tune was not started">
              {form.errors.form}
            </Alert>
          ) : null}
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={create.isPending}>
              Start fine-tune
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

function BaseModelFacts({ base }: { base: BaseModel }) {
  return (
    <Paper withBorder p="xs" radius="md" data-testid="base-model-facts">
      <Text size="sm">
        Context window {formatCompact(base.contextWindow)} tokens · up to {formatCompact(base.maxCompletionTokens)} output tokens ·{" "}
        {base.capabilities.join(", ")}
      </Text>
      <Text size="sm" c="dimmed">
        Calling the fine-tune: ${base.pricing.inputPerMillion} per million input tokens, ${base.pricing.outputPerMillion} per million output tokens (
        {base.backend}'s list price). Training: ${base.pricing.trainingPerMillion} per million training tokens, billed by {base.backend} on your provider key.
      </Text>
    </Paper>
  );
}
