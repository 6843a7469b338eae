import { Badge, Button, Group, Modal, MultiSelect, Paper, Progress, Select, Stack, Table, TagsInput, Text } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Link, useNavigate } from "@tanstack/react-router";
import { useState } from "react";
import { ErrorAlert } from "../../components/error-alert";
import { PageHeader } from "../../components/page-header";
import { formatNumber, formatRelative } from "../../lib/format";
import { type RouterOutputs, useTRPC } from "../../lib/trpc";

export type Evaluation = RouterOutputs["evaluations"]["list"][number];
export const ACTIVE = new Set(["QUEUED", "RUNNING"]);
const STATUS_COLORS: Record<string, string> = { QUEUED: "blue", RUNNING: "yellow", DONE: "teal", CANCELLED: "gray", ERROR: "red" };

export function EvaluationStatus({ status }: { status: string }) {
  return (
    <Badge color={STATUS_COLORS[status] ?? "gray"} variant="light" data-testid="evaluation-status">
      {status}
    </Badge>
  );
}

export function EvaluationProgress({ evaluation }: { evaluation: Pick<Evaluation, "progress" | "status"> }) {
  const { done, total } = evaluation.progress;
  return (
    <Group gap="xs" wrap="nowrap">
      <Progress value={total ? (100 * done) / total : 0} w={120} animated={ACTIVE.has(evaluation.status)} aria-label="Evaluation progress" />
      <Text size="xs" c="dimmed" data-testid="evaluation-progress">
        {formatNumber(done)} / {formatNumber(total)}
      </Text>
    </Group>
  );
}

function CreateEvaluation({ onClose }: { onClose(): void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const datasets = useQuery(trpc.datasets.list.queryOptions());
  const models = useQuery(trpc.models.list.queryOptions());
  const facets = useQuery(trpc.logs.facets.queryOptions());
  const criteria = useQuery(trpc.criteria.list.queryOptions());
  const [datasetId, setDatasetId] = useState<string | null>(null);
  const [chosenModels, setChosenModels] = useState<string[]>([]);
  const [chosenCriteria, setChosenCriteria] = useState<string[]>([]);
  const suggestions = [
    ...new Set([
      "dataset",
      ...(models.data ?? []).filter((m) => m.status === "DEPLOYED").map((m) => `hone:${m.slug}`),
      ...(facets.data?.models ?? []).map((m) => m.value),
      "gpt-4o-mini",
    ]),
  ];
  const create = useMutation(
    trpc.evaluations.create.mutationOptions({
      onSuccess: async (e) => {
        await queryClient.invalidateQueries({ queryKey: trpc.evaluations.list.queryKey() });
        notifications.show({ message: "Evaluation started" });
        onClose();
        void navigate({ to: "/evaluations/$evaluationId", params: { evaluationId: e.id } });
      },
    }),
  );
  const dataset = datasets.data?.find((d) => d.id === datasetId);
  return (
    <Modal opened onClose={onClose} title="New evaluation" size="lg">
      <Stack
        component="form"
        onSubmit={(e) => {
          e.preventDefault();
          if (datasetId) create.mutate({ datasetId, models: chosenModels, criterionIds: chosenCriteria });
        }}
      >
        <Select
          label="Dataset"
          description="Every model answers each of its TEST entries"
          data={(datasets.data ?? []).map((d) => ({ value: d.id, label: `${d.name} (${formatNumber(d.testCount)} test entries)` }))}
          value={datasetId}
          onChange={setDatasetId}
          searchable
          required
        />
        <TagsInput
          label="Models"
          description="Type any model string; 'dataset' is the entry's own reference answer, hone:<slug> a deployed fine-tune"
          data={suggestions}
          value={chosenModels}
          onChange={setChosenModels}
          maxTags={10}
          clearable
        />
        <MultiSelect
          label="Criteria (versions pinned)"
          description="Each model's answers are judged by every criterion chosen, at exactly this version"
          data={(criteria.data ?? []).map((c) => ({
            group: c.name,
            items: [...c.versions]
              .reverse()
              .map((v) => ({ value: `${c.id}@v${v.version}`, label: `${c.name} v${v.version}${v.version === c.latestVersion ? " (latest)" : ""}` })),
          }))}
          value={chosenCriteria}
          onChange={(values) => {
            // One version per criterion: the one picked last wins.
            const byCriterion = new Map(values.map((v) => [v.split("@v")[0], v]));
            setChosenCriteria([...byCriterion.values()]);
          }}
          searchable
          maxValues={10}
        />
        {dataset ? (
          <Text size="sm" c="dimmed">
            {formatNumber(dataset.testCount * chosenModels.length)} answers to get, each judged {chosenCriteria.length} times.
          </Text>
        ) : null}
        <ErrorAlert error={create.error} title="Not started" />
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" loading={create.isPending} disabled={!datasetId || !chosenModels.length || !chosenCriteria.length}>
            Start evaluation
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}

export function EvaluationsPage() {
  const trpc = useTRPC();
  const list = useQuery({
    ...trpc.evaluations.list.queryOptions(),
    refetchInterval: (q) => (q.state.data?.some((e) => ACTIVE.has(e.status)) ? 1500 : false),
  });
  const datasets = useQuery(trpc.datasets.list.queryOptions());
  const datasetNames = new Map((datasets.data ?? []).map((d) => [d.id, d.name]));
  const [creating, setCreating] = useState(false);
  return (
    <>
      <PageHeader
        title="Evaluations"
        description="Models answer a dataset's TEST entries and criteria judge every answer: which model is better, and where."
        actions={<Button onClick={() => setCreating(true)}>New evaluation</Button>}
      />
      <ErrorAlert error={list.error} />
      {list.data && list.data.length === 0 ? (
        <Paper withBorder p="xl" maw={640}>
          <Text fw={600}>No evaluations yet</Text>
          <Text size="sm" c="dimmed">
            You need a dataset with TEST entries and at least one criterion. Compare a fine-tune with its base model, or with the dataset's own answers.
          </Text>
        </Paper>
      ) : null}
      {list.data?.length ? (
        <Table striped highlightOnHover aria-label="Evaluations">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Evaluation</Table.Th>
              <Table.Th>Dataset</Table.Th>
              <Table.Th>Models</Table.Th>
              <Table.Th>Status</Table.Th>
              <Table.Th>Progress</Table.Th>
              <Table.Th>Created</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {list.data.map((e) => (
              <Table.Tr key={e.id} data-testid="evaluation-row">
                <Table.Td>
                  <Link to="/evaluations/$evaluationId" params={{ evaluationId: e.id }}>
                    {e.id.slice(0, 16)}…
                  </Link>
                </Table.Td>
                <Table.Td>{e.datasetId ? (datasetNames.get(e.datasetId) ?? e.datasetId) : "deleted"}</Table.Td>
                <Table.Td>
                  <Group gap={4}>
                    {e.models.map((m) => (
                      <Badge key={m} variant="outline" color="gray" tt="none">
                        {m}
                      </Badge>
                    ))}
                  </Group>
                </Table.Td>
                <Table.Td>
                  <EvaluationStatus status={e.status} />
                </Table.Td>
                <Table.Td>
                  <EvaluationProgress evaluation={e} />
                </Table.Td>
                <Table.Td>{formatRelative(e.createdAt)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      ) : null}
      {creating ? <CreateEvaluation onClose={() => setCreating(false)} /> : null}
    </>
  );
}
