import { Badge, Button, Group, Modal, MultiSelect, Paper, Select, SimpleGrid, Stack, Table, Text, TextInput } from "@mantine/core";
import { useDebouncedValue } from "@mantine/hooks";
import { notifications } from "@mantine/notifications";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Link, useNavigate } from "@tanstack/react-router";
import { useState } from "react";
import { ErrorAlert } from "../../components/error-alert";
import { PageHeader } from "../../components/page-header";
import { formatCompact, formatCost, formatNumber, formatTime, plural } from "../../lib/format";
import { type RouterOutputs, useTRPC } from "../../lib/trpc";

export type Model = RouterOutputs["models"]["list"][number];
export const ACTIVE = new Set(["PENDING", "QUEUED", "TRAINING"]);
const STATUS_COLORS: Record<string, string> = { PENDING: "gray", QUEUED: "blue", TRAINING: "yellow", DEPLOYED: "teal", ERROR: "red" };

export function ModelStatus({ status }: { status: string }) {
  return (
    <Badge color={STATUS_COLORS[status] ?? "gray"} variant="light" data-testid="model-status">
      {status}
    </Badge>
  );
}

function CreateModel({ onClose }: { onClose(): void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const datasets = useQuery(trpc.datasets.list.queryOptions());
  const catalogue = useQuery(trpc.models.catalogue.queryOptions());
  const criteria = useQuery(trpc.criteria.list.queryOptions());
  const [datasetId, setDatasetId] = useState<string | null>(null);
  const [baseModel, setBaseModel] = useState<string | null>(null);
  const [slug, setSlug] = useState("");
  const [exclude, setExclude] = useState<string[]>([]);
  const [hp, setHp] = useState<Record<string, string>>({});
  const base = catalogue.data?.find((m) => m.id === baseModel);
  // Hyperparameters as the backend takes them: numbers where they are numbers, words (auto, max) as words.
  const hyperparameters = Object.fromEntries(
    Object.entries(hp)
      .filter(([name, v]) => v.trim() && base?.hyperparameters.some((h) => h.name === name))
      .map(([name, v]) => [name, Number.isFinite(Number(v)) ? Number(v) : v.trim()]),
  );
  const [estimateInput] = useDebouncedValue({ datasetId, baseModel, hyperparameters: JSON.stringify(hyperparameters), exclude: exclude.join(",") }, 300);
  const estimate = useQuery({
    ...trpc.models.estimate.queryOptions({
      datasetId: estimateInput.datasetId ?? "",
      baseModel: estimateInput.baseModel ?? "",
      hyperparameters: JSON.parse(estimateInput.hyperparameters),
      excludeFailing: estimateInput.exclude ? estimateInput.exclude.split(",") : null,
    }),
    enabled: Boolean(estimateInput.datasetId && estimateInput.baseModel),
  });
  const dataset = datasets.data?.find((d) => d.id === datasetId);
  const create = useMutation(
    trpc.models.create.mutationOptions({
      onSuccess: async (m) => {
        await queryClient.invalidateQueries({ queryKey: trpc.models.list.queryKey() });
        notifications.show({ message: `Fine-tune ${m.slug} started` });
        onClose();
        void navigate({ to: "/models/$slug", params: { slug: m.slug } });
      },
    }),
  );
  return (
    <Modal opened onClose={onClose} title="New fine-tune" size="lg">
      <Stack
        component="form"
        onSubmit={(e) => {
          e.preventDefault();
          if (!datasetId || !base) return;
          create.mutate({
            datasetId,
            slug,
            excludeFailing: exclude.length ? exclude : null,
            trainingConfig: { provider: base.backend, baseModel: base.id, hyperparameters },
          });
        }}
      >
        <Select
          label="Dataset"
          description="Its TRAIN entries are the training data"
          data={(datasets.data ?? []).map((d) => ({ value: d.id, label: `${d.name} (${formatNumber(d.trainCount)} train entries)` }))}
          value={datasetId}
          onChange={setDatasetId}
          required
          searchable
        />
        <Select
          label="Base model"
          data={(catalogue.data ?? []).map((m) => ({ value: m.id, label: `${m.id} · ${m.backend}` }))}
          value={baseModel}
          onChange={setBaseModel}
          required
          searchable
        />
        {base ? (
          <Paper withBorder p="xs" radius="md" data-testid="base-model-facts">
            <Text size="sm">
              Context window {formatCompact(base.contextWindow)} tokens · up to {formatCompact(base.maxCompletionTokens)} output tokens ·{" "}
              {base.capabilities.join(", ")}
            </Text>
            <Text size="sm" c="dimmed">
              Calling the fine-tune: ${base.pricing.inputPerMillion} per million input tokens, ${base.pricing.outputPerMillion} per million output tokens (
              {base.backend}'s list price). Training: ${base.pricing.trainingPerMillion} per million training tokens, billed by {base.backend} on your provider
              key.
            </Text>
          </Paper>
        ) : null}
        <TextInput
          label="Slug"
          description="Call it as hone:<slug>. Lowercase letters, digits and dashes."
          value={slug}
          onChange={(e) => setSlug(e.currentTarget.value)}
          required
        />
        <MultiSelect
          label="Exclude entries that failed"
          description="Entries whose latest verdict of one of these criteria is FAIL are left out"
          data={(criteria.data ?? []).map((c) => ({ value: c.id, label: c.name }))}
          value={exclude}
          onChange={setExclude}
          clearable
        />
        {base ? (
          <Stack gap={4}>
            <Text size="sm" fw={500}>
              Hyperparameters ({base.backend}; leave empty for the default)
            </Text>
            <SimpleGrid cols={2} spacing="xs">
              {base.hyperparameters.map((h) => (
                <TextInput
                  key={h.name}
                  size="xs"
                  label={h.name}
                  description={h.description}
                  placeholder={`default: ${h.default}`}
                  value={hp[h.name] ?? ""}
                  onChange={(e) => {
                    const v = e.currentTarget.value;
                    setHp((old) => ({ ...old, [h.name]: v }));
                  }}
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
              {plural(estimate.data.epochs, "epoch")} = {formatNumber(estimate.data.trainingTokens)} training tokens at ${estimate.data.trainingPerMillion} per
              million
            </Text>
            <Text size="xs" c="dimmed">
              An estimate: {estimate.data.method}. The backend bills its own count.
            </Text>
          </Paper>
        ) : estimate.error ? (
          <ErrorAlert error={estimate.error} title="No estimate" />
        ) : null}
        {dataset && dataset.trainCount === 0 ? (
          <Text size="sm" c="red">
            This dataset has no TRAIN entries yet.
          </Text>
        ) : null}
        <ErrorAlert error={create.error} title="The fine-tune was not started" />
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" loading={create.isPending} disabled={!datasetId || !base || !slug}>
            Start fine-tune
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}

export function ModelsPage() {
  const trpc = useTRPC();
  const models = useQuery({
    ...trpc.models.list.queryOptions(),
    // Poll while any fine-tune is still on its way.
    refetchInterval: (q) => ((q.state.data ?? []).some((m) => ACTIVE.has(m.status)) ? 2000 : false),
  });
  const datasets = useQuery(trpc.datasets.list.queryOptions());
  const names = new Map((datasets.data ?? []).map((d) => [d.id, d.name]));
  const [creating, setCreating] = useState(false);
  const rows = models.data ?? [];
  return (
    <>
      <PageHeader
        title="Models"
        description="Fine-tunes of this project, trained on a dataset and served by the gateway as hone:<slug>."
        actions={<Button onClick={() => setCreating(true)}>New fine-tune</Button>}
      />
      <ErrorAlert error={models.error} />
      {models.data && rows.length === 0 ? (
        <Paper withBorder p="xl" maw={640}>
          <Text fw={600}>No fine-tunes yet</Text>
          <Text size="sm" c="dimmed">
            Fill a dataset (Datasets), store a provider key for the training backend (Settings), then start one with "New fine-tune".
          </Text>
        </Paper>
      ) : (
        <Table striped highlightOnHover aria-label="Models">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Slug</Table.Th>
              <Table.Th>Status</Table.Th>
              <Table.Th>Base model</Table.Th>
              <Table.Th>Dataset</Table.Th>
              <Table.Th ta="right">Training entries</Table.Th>
              <Table.Th>Created</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.map((m) => (
              <Table.Tr key={m.id} data-testid={`model-row-${m.slug}`}>
                <Table.Td>
                  <Link to="/models/$slug" params={{ slug: m.slug }}>
                    {m.slug}
                  </Link>
                </Table.Td>
                <Table.Td>
                  <ModelStatus status={m.status} />
                </Table.Td>
                <Table.Td>
                  <Text size="sm" ff="monospace">
                    {m.baseModel}
                  </Text>
                </Table.Td>
                <Table.Td>
                  {m.datasetId ? (
                    <Link to="/datasets/$datasetId" params={{ datasetId: m.datasetId }}>
                      {names.get(m.datasetId) ?? m.datasetId}
                    </Link>
                  ) : (
                    "deleted"
                  )}
                </Table.Td>
                <Table.Td ta="right">{formatNumber(m.trainingEntries)}</Table.Td>
                <Table.Td>{formatTime(m.createdAt)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      {creating ? <CreateModel onClose={() => setCreating(false)} /> : null}
    </>
  );
}
