import { Badge, Button, Group, Loader, Paper, SimpleGrid, Stack, Switch, Table, Tabs, Text, Title, Select } from "@mantine/core";
import { modals } from "@mantine/modals";
import { type InfiniteData, useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Link, useNavigate, useParams, useSearch } from "@tanstack/react-router";
import { ErrorAlert } from "../../components/error-alert";
import { PageHeader } from "../../components/page-header";
import { formatCost, formatMs, formatNumber, formatTime } from "../../lib/format";
import { type RouterOutputs, useTRPC, useTRPCClient } from "../../lib/trpc";
import { Message, toolNamesOf } from "../logs/conversation";
import { ACTIVE, EvaluationProgress, EvaluationStatus } from "./evaluations-page";
import type { EvaluationSearch } from "./search";

type Detail = RouterOutputs["evaluations"]["get"];
type SummaryRow = Detail["summary"][number];
type Result = RouterOutputs["evaluations"]["results"][number];
type EntriesPage = RouterOutputs["evaluations"]["entries"];

const pct = (v: number | null) => (v == null ? "–" : `${(100 * v).toFixed(1)}%`);

/** Per column, which value is best: higher for pass rate and score, lower for errors, cost and time. */
const COLUMNS: { key: string; label: string; value(r: SummaryRow): number | null; show(r: SummaryRow): string; higher: boolean }[] = [
  { key: "passRate", label: "Pass rate", value: (r) => r.passRate, show: (r) => pct(r.passRate), higher: true },
  { key: "meanScore", label: "Mean score", value: (r) => r.meanScore, show: (r) => (r.meanScore == null ? "–" : r.meanScore.toFixed(2)), higher: true },
  { key: "judgeErrors", label: "Judge errors", value: (r) => r.judgeErrors, show: (r) => formatNumber(r.judgeErrors), higher: false },
  { key: "outputErrors", label: "Failed answers", value: (r) => r.outputErrors, show: (r) => formatNumber(r.outputErrors), higher: false },
  {
    key: "tokens",
    label: "Tokens in / out",
    value: (r) => r.inputTokens + r.outputTokens,
    show: (r) => `${formatNumber(r.inputTokens)} / ${formatNumber(r.outputTokens)}`,
    higher: false,
  },
  { key: "cost", label: "Cost", value: (r) => r.costUsd, show: (r) => formatCost(r.costUsd), higher: false },
  { key: "latency", label: "Mean latency", value: (r) => r.meanLatencyMs, show: (r) => formatMs(r.meanLatencyMs), higher: false },
];

/** One row per model and criterion; per criterion, the best value of each column is marked (★, bold). */
function SummaryTable({ detail, names }: { detail: Detail; names: Map<string, string> }) {
  const best = new Map<string, number>();
  for (const col of COLUMNS) {
    for (const c of detail.criteria) {
      const values = detail.summary
        .filter((r) => r.criterionId === c.criterionId)
        .map(col.value)
        .filter((v): v is number => v != null);
      if (values.length > 1 && new Set(values).size > 1) best.set(`${col.key}:${c.criterionId}`, col.higher ? Math.max(...values) : Math.min(...values));
    }
  }
  return (
    <Table withTableBorder striped aria-label="Summary">
      <Table.Thead>
        <Table.Tr>
          <Table.Th>Criterion</Table.Th>
          <Table.Th>Model</Table.Th>
          {COLUMNS.map((c) => (
            <Table.Th key={c.key}>{c.label}</Table.Th>
          ))}
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {detail.summary.map((r) => (
          <Table.Tr key={`${r.criterionId}:${r.model}`} data-testid="summary-row" data-model={r.model} data-criterion={r.criterionId}>
            <Table.Td>
              {names.get(r.criterionId) ?? r.criterionId} v{detail.criteria.find((c) => c.criterionId === r.criterionId)?.version}
            </Table.Td>
            <Table.Td>
              <Text size="sm" ff="monospace">
                {r.model}
              </Text>
            </Table.Td>
            {COLUMNS.map((c) => {
              const isBest = best.get(`${c.key}:${r.criterionId}`) === c.value(r) && c.value(r) != null;
              return (
                <Table.Td key={c.key} fw={isBest ? 700 : undefined} data-testid={`summary-${c.key}`} data-best={isBest || undefined}>
                  {c.show(r)}
                  {isBest ? " ★" : ""}
                </Table.Td>
              );
            })}
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

/** A model's answer to one entry with each criterion's verdict and explanation. */
function ResultCard({ result, names, scope }: { result: Result | undefined; names: Map<string, string>; scope: string }) {
  if (!result) return <Text c="dimmed">no answer yet</Text>;
  return (
    <Paper withBorder p="xs" radius="md" data-testid="model-result" data-model={result.model}>
      <Group justify="space-between" mb={4}>
        <Text size="sm" fw={600} ff="monospace">
          {result.model}
        </Text>
        <Text size="xs" c="dimmed">
          {formatMs(result.latencyMs)} · {formatNumber(result.outputTokens)} tokens · {formatCost(result.costUsd)}
        </Text>
      </Group>
      {result.error ? (
        <Text c="red" size="sm">
          {result.error}
        </Text>
      ) : (
        <Message message={result.output} scope={scope} />
      )}
      <Stack gap={4} mt={6}>
        {Object.entries(result.verdicts).map(([criterionId, v]) => (
          <Group key={criterionId} gap={6} wrap="nowrap" align="flex-start" data-testid="verdict">
            <Badge color={v.status === "error" ? "gray" : v.score >= 1 ? "teal" : "red"} variant="light" tt="none" style={{ flexShrink: 0 }}>
              {names.get(criterionId) ?? criterionId}: {v.status === "error" ? "error" : v.score >= 1 ? "PASS" : "FAIL"}
            </Badge>
            <Text size="xs">{v.status === "error" ? v.errorMessage : v.explanation}</Text>
          </Group>
        ))}
      </Stack>
    </Paper>
  );
}

function EntriesView({ detail, names, differ, setDiffer }: { detail: Detail; names: Map<string, string>; differ: boolean; setDiffer(v: boolean): void }) {
  const client = useTRPCClient();
  const key = ["evaluation-entries", detail.id, differ, detail.progress.done] as const;
  const entries = useInfiniteQuery<EntriesPage, Error, InfiniteData<EntriesPage, string | null>, typeof key, string | null>({
    queryKey: key,
    initialPageParam: null,
    queryFn: ({ pageParam, signal }) => client.evaluations.entries.query({ id: detail.id, first: 10, after: pageParam, onlyDifferent: differ }, { signal }),
    getNextPageParam: (last) => (last.hasNextPage ? last.endCursor : undefined),
    placeholderData: (old) => old,
  });
  const rows = entries.data?.pages.flatMap((p) => p.entries) ?? [];
  return (
    <Stack>
      <Switch
        label="Only entries where the models' verdicts differ (or something failed)"
        checked={differ}
        onChange={(e) => setDiffer(e.currentTarget.checked)}
      />
      <ErrorAlert error={entries.error} />
      {entries.isPending ? <Loader aria-label="Loading entries" /> : null}
      {entries.data && rows.length === 0 ? <Text c="dimmed">No entries {differ ? "where the models differ" : "judged yet"}.</Text> : null}
      {rows.map((e) => {
        const input = (e.input ?? []) as unknown[];
        const toolNames = toolNamesOf(input);
        return (
          <Paper key={e.entryId} withBorder p="sm" radius="md" data-testid="evaluation-entry" data-entry-id={e.entryId}>
            <Text size="xs" c="dimmed" mb={4}>
              Entry {e.entryId}
            </Text>
            <Stack gap={4} mb="sm">
              {e.input ? (
                input.map((m, i) => (
                  // biome-ignore lint/suspicious/noArrayIndexKey: messages have no ids; their order is their identity
                  <Message key={i} message={m} scope={`${e.entryId}-in-${i}`} toolNames={toolNames} />
                ))
              ) : (
                <Text size="sm" c="dimmed">
                  The entry was deleted from the dataset since.
                </Text>
              )}
            </Stack>
            <SimpleGrid cols={{ base: 1, md: Math.min(detail.models.length, 3) }}>
              {detail.models.map((m) => (
                <ResultCard key={m} result={e.results.find((r) => r.model === m)} names={names} scope={`${e.entryId}-${m}`} />
              ))}
            </SimpleGrid>
          </Paper>
        );
      })}
      {entries.hasNextPage ? (
        <Group justify="center">
          <Button variant="default" onClick={() => void entries.fetchNextPage()} loading={entries.isFetchingNextPage}>
            Load more entries
          </Button>
        </Group>
      ) : null}
    </Stack>
  );
}

function HeadToHead({
  detail,
  names,
  a,
  b,
  setPair,
}: {
  detail: Detail;
  names: Map<string, string>;
  a: string;
  b: string;
  setPair(a: string, b: string): void;
}) {
  const trpc = useTRPC();
  const h2h = useQuery({ ...trpc.evaluations.headToHead.queryOptions({ id: detail.id, modelA: a, modelB: b }), enabled: a !== b });
  const d = h2h.data;
  return (
    <Stack>
      <Group align="flex-end">
        <Select label="Model A" w={260} data={detail.models} value={a} onChange={(v) => v && setPair(v, b)} allowDeselect={false} />
        <Select label="Model B" w={260} data={detail.models} value={b} onChange={(v) => v && setPair(a, v)} allowDeselect={false} />
      </Group>
      {a === b ? <Text c="dimmed">Choose two different models.</Text> : null}
      <ErrorAlert error={h2h.error} />
      {d ? (
        <>
          <SimpleGrid cols={3} maw={600}>
            <Paper withBorder p="sm" radius="md">
              <Text size="xs" c="dimmed">
                {a} wins
              </Text>
              <Text size="xl" fw={700} data-testid="h2h-a-wins">
                {d.aWins}
              </Text>
            </Paper>
            <Paper withBorder p="sm" radius="md">
              <Text size="xs" c="dimmed">
                {b} wins
              </Text>
              <Text size="xl" fw={700} data-testid="h2h-b-wins">
                {d.bWins}
              </Text>
            </Paper>
            <Paper withBorder p="sm" radius="md">
              <Text size="xs" c="dimmed">
                Ties
              </Text>
              <Text size="xl" fw={700} data-testid="h2h-ties">
                {d.ties}
              </Text>
            </Paper>
          </SimpleGrid>
          <Text size="sm" c="dimmed">
            A model wins an entry when more of the criteria pass its answer. Below: the {d.entries.length} entries where one passes a criterion the other fails.
          </Text>
          {d.entries.map((e) => (
            <Paper key={e.entryId} withBorder p="sm" radius="md" data-testid="h2h-entry">
              <Text size="xs" c="dimmed" mb={4}>
                Entry {e.entryId} · score {e.scoreA} vs {e.scoreB}
              </Text>
              <SimpleGrid cols={2}>
                <ResultCard result={e.a} names={names} scope={`h2h-${e.entryId}-a`} />
                <ResultCard result={e.b} names={names} scope={`h2h-${e.entryId}-b`} />
              </SimpleGrid>
            </Paper>
          ))}
        </>
      ) : null}
    </Stack>
  );
}

export function EvaluationPage() {
  const { evaluationId } = useParams({ from: "/evaluations/$evaluationId" });
  const search = useSearch({ from: "/evaluations/$evaluationId" }) as EvaluationSearch;
  const navigate = useNavigate();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const detail = useQuery({
    ...trpc.evaluations.get.queryOptions({ id: evaluationId }),
    refetchInterval: (q) => (q.state.data && ACTIVE.has(q.state.data.status) ? 1000 : false),
  });
  const criteria = useQuery(trpc.criteria.list.queryOptions());
  const datasets = useQuery(trpc.datasets.list.queryOptions());
  const names = new Map((criteria.data ?? []).map((c) => [c.id, c.name]));
  const cancel = useMutation(
    trpc.evaluations.cancel.mutationOptions({
      onSuccess: () => void queryClient.invalidateQueries({ queryKey: trpc.evaluations.get.queryKey({ id: evaluationId }) }),
    }),
  );
  const setSearch = (patch: Partial<EvaluationSearch>) =>
    void navigate({ to: "/evaluations/$evaluationId", params: { evaluationId }, search: (old) => ({ ...(old as EvaluationSearch), ...patch }), replace: true });
  if (detail.error) return <ErrorAlert error={detail.error} title="Evaluation not found" />;
  const d = detail.data;
  if (!d) return <Loader aria-label="Loading evaluation" />;
  const dataset = datasets.data?.find((x) => x.id === d.datasetId);
  const a = search.a && d.models.includes(search.a) ? search.a : d.models[0]!;
  const b = search.b && d.models.includes(search.b) ? search.b : (d.models[1] ?? d.models[0]!);
  return (
    <>
      <PageHeader
        title="Evaluation"
        description={
          <span>
            {dataset ? (
              <Link to="/datasets/$datasetId" params={{ datasetId: dataset.id }}>
                {dataset.name}
              </Link>
            ) : (
              "deleted dataset"
            )}{" "}
            · {d.models.length} models · {d.criteria.length} criteria · started {formatTime(d.createdAt)} · <Link to="/evaluations">all evaluations</Link>
          </span>
        }
        actions={
          ACTIVE.has(d.status) ? (
            <Button
              color="red"
              variant="light"
              onClick={() =>
                modals.openConfirmModal({
                  title: "Cancel this evaluation?",
                  children: <Text size="sm">Answers and verdicts so far are kept; nothing more is asked of the models or judges.</Text>,
                  labels: { confirm: "Cancel evaluation", cancel: "Keep running" },
                  confirmProps: { color: "red" },
                  onConfirm: () => cancel.mutate({ id: evaluationId }),
                })
              }
            >
              Cancel
            </Button>
          ) : null
        }
      />
      <Group mb="md">
        <EvaluationStatus status={d.status} />
        <EvaluationProgress evaluation={d} />
        {d.errorMessage ? (
          <Text c="red" size="sm">
            {d.errorMessage}
          </Text>
        ) : null}
      </Group>
      <ErrorAlert error={cancel.error} title="Not cancelled" />
      <Tabs
        value={search.tab ?? "summary"}
        onChange={(v) => setSearch({ tab: v === "summary" ? undefined : (v as EvaluationSearch["tab"]) })}
        keepMounted={false}
      >
        <Tabs.List mb="md">
          <Tabs.Tab value="summary">Summary</Tabs.Tab>
          <Tabs.Tab value="entries">Entries side by side</Tabs.Tab>
          <Tabs.Tab value="h2h" disabled={d.models.length < 2}>
            Head to head
          </Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="summary">
          <Title order={4} mb="xs">
            Per model and criterion
          </Title>
          <SummaryTable detail={d} names={names} />
        </Tabs.Panel>
        <Tabs.Panel value="entries">
          <EntriesView detail={d} names={names} differ={search.differ ?? false} setDiffer={(v) => setSearch({ differ: v || undefined })} />
        </Tabs.Panel>
        <Tabs.Panel value="h2h">
          <HeadToHead detail={d} names={names} a={a} b={b} setPair={(na, nb) => setSearch({ a: na, b: nb })} />
        </Tabs.Panel>
      </Tabs>
    </>
  );
}
