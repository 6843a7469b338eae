import { Alert, Badge, Button, Group, Paper, Progress, Select, SimpleGrid, Stack, Table, Text, Title } from "@mantine/core";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { ErrorAlert } from "../../components/error-alert";
import { formatNumber, formatTime } from "../../lib/format";
import { messageText } from "../../lib/messages";
import { type RouterOutputs, useTRPC } from "../../lib/trpc";
import { formatRatio } from "./criteria-page";
import { type AlignmentRow, useAlignmentRows } from "./alignment-set";
import type { CriterionDetail } from "./prompt-editor";

type Stats = RouterOutputs["criteria"]["alignmentRuns"][number];
type Task = RouterOutputs["criteria"]["alignmentTask"];
const ACTIVE = new Set(["QUEUED", "RUNNING"]);

/** Starts a background run of a version and follows it with a progress bar until it ends. */
function RunControl({ criterion, onFinished }: { criterion: CriterionDetail; onFinished(version: number): void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [version, setVersion] = useState(String(criterion.latestVersion));
  const tasks = useQuery({
    ...trpc.criteria.alignmentTasks.queryOptions({ criterionId: criterion.id }),
    refetchInterval: (q) => (q.state.data?.some((t) => ACTIVE.has(t.status)) ? 700 : false),
  });
  const start = useMutation(
    trpc.criteria.startAlignmentRun.mutationOptions({
      onSuccess: () => void queryClient.invalidateQueries({ queryKey: trpc.criteria.alignmentTasks.queryKey({ criterionId: criterion.id }) }),
    }),
  );
  const active = tasks.data?.filter((t) => ACTIVE.has(t.status)) ?? [];
  const latest = tasks.data?.[0];
  // When a run ends, its statistics and verdicts are read again.
  const [seen, setSeen] = useState<string | null>(null);
  useEffect(() => {
    if (latest && !ACTIVE.has(latest.status) && latest.id !== seen) {
      if (seen !== null || latest.status === "DONE") onFinished(latest.version);
      setSeen(latest.id);
    }
  }, [latest, seen, onFinished]);
  return (
    <Paper withBorder p="md" radius="md">
      <Group align="flex-end">
        <Select
          label="Run version"
          w={180}
          data={criterion.versions.map((v) => ({ value: String(v.version), label: `v${v.version}` }))}
          value={version}
          onChange={(v) => v && setVersion(v)}
          allowDeselect={false}
        />
        <Button onClick={() => start.mutate({ criterionId: criterion.id, version: Number(version) })} loading={start.isPending}>
          Run against my labels
        </Button>
        <Text size="xs" c="dimmed" pb={8} maw={420}>
          The judge sees every row of the set; runs in the background, so you can leave this page.
        </Text>
      </Group>
      <ErrorAlert error={start.error} title="Not started" />
      {active.map((t) => (
        <TaskProgress key={t.id} task={t} />
      ))}
      {latest && latest.status === "ERROR" ? (
        <Alert color="red" mt="sm" title={`The run of v${latest.version} failed`}>
          {latest.errorMessage}
        </Alert>
      ) : null}
    </Paper>
  );
}

function TaskProgress({ task }: { task: Task }) {
  const pct = task.progress.total ? (100 * task.progress.done) / task.progress.total : 0;
  return (
    <Stack gap={4} mt="sm" data-testid="alignment-progress">
      <Text size="sm">
        v{task.version}: {task.status === "QUEUED" ? "queued" : `${formatNumber(task.progress.done)} of ${formatNumber(task.progress.total)} rows judged`}
      </Text>
      <Progress value={pct} animated aria-label={`Alignment run of v${task.version}`} />
    </Stack>
  );
}

function Metric({ label, value, hint }: { label: string; value: string; hint: string }) {
  return (
    <Paper withBorder p="sm" radius="md">
      <Text size="xs" c="dimmed" tt="uppercase" fw={700}>
        {label}
      </Text>
      <Text size="xl" fw={700} data-testid={`metric-${label.toLowerCase()}`}>
        {value}
      </Text>
      <Text size="xs" c="dimmed">
        {hint}
      </Text>
    </Paper>
  );
}

/** Precision, recall, F1 (FAIL is the positive class) and the confusion matrix of one version's run. */
function StatsView({ stats }: { stats: Stats }) {
  return (
    <Stack>
      <SimpleGrid cols={{ base: 2, md: 5 }}>
        <Metric label="Precision" value={formatRatio(stats.precision)} hint="of the rows the judge failed, the share you failed too" />
        <Metric label="Recall" value={formatRatio(stats.recall)} hint="of the rows you failed, the share the judge failed too" />
        <Metric label="F1" value={formatRatio(stats.f1)} hint="harmonic mean of precision and recall" />
        <Metric label="Rows" value={formatNumber(stats.rows)} hint="labelled by you and judged" />
        <Metric label="Judge errors" value={formatNumber(stats.judgeErrors)} hint="rows the judge could not decide" />
      </SimpleGrid>
      {stats.warning ? (
        <Alert color="yellow" title="Few labelled rows">
          {stats.warning}
        </Alert>
      ) : null}
      <Table withTableBorder withColumnBorders maw={520} aria-label="Confusion matrix">
        <Table.Thead>
          <Table.Tr>
            <Table.Th />
            <Table.Th>You: FAIL</Table.Th>
            <Table.Th>You: PASS</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          <Table.Tr>
            <Table.Th>Judge: FAIL</Table.Th>
            <Table.Td data-testid="cm-tp">{stats.truePositives} (true positives)</Table.Td>
            <Table.Td data-testid="cm-fp">{stats.falsePositives} (false positives)</Table.Td>
          </Table.Tr>
          <Table.Tr>
            <Table.Th>Judge: PASS</Table.Th>
            <Table.Td data-testid="cm-fn">{stats.falseNegatives} (false negatives)</Table.Td>
            <Table.Td data-testid="cm-tn">{stats.trueNegatives} (true negatives)</Table.Td>
          </Table.Tr>
        </Table.Tbody>
      </Table>
    </Stack>
  );
}

const verdictOf = (row: AlignmentRow, version: number) => row.verdicts.find((v) => v.version === version);

/** Rows where the judge and the person differ, and rows the judge could not decide, with its explanation. */
function Disagreements({ rows, version }: { rows: AlignmentRow[]; version: number }) {
  const differ = rows.filter((r) => {
    const v = verdictOf(r, version);
    return r.judgement && v?.verdict && v.verdict !== r.judgement;
  });
  const errors = rows.filter((r) => verdictOf(r, version)?.error);
  return (
    <Stack gap="xs">
      <Title order={4}>
        Disagreements ({differ.length}){errors.length ? ` and judge errors (${errors.length})` : ""}
      </Title>
      {differ.length === 0 && errors.length === 0 ? (
        <Text size="sm" c="dimmed">
          The judge agrees with every label you gave.
        </Text>
      ) : null}
      <Table aria-label="Disagreements" striped>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Output</Table.Th>
            <Table.Th>You</Table.Th>
            <Table.Th>Judge</Table.Th>
            <Table.Th>Judge's explanation</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {[...differ, ...errors].map((r) => {
            const v = verdictOf(r, version)!;
            return (
              <Table.Tr key={r.id} data-testid="disagreement" data-row-id={r.id}>
                <Table.Td maw={360}>
                  <Text size="sm" lineClamp={3}>
                    {messageText(r.output)}
                  </Text>
                </Table.Td>
                <Table.Td>
                  <Badge color={r.judgement === "PASS" ? "teal" : r.judgement === "FAIL" ? "red" : "gray"}>{r.judgement ?? "—"}</Badge>
                </Table.Td>
                <Table.Td>
                  <Badge color={v.verdict === "PASS" ? "teal" : v.verdict === "FAIL" ? "red" : "gray"}>{v.verdict ?? "error"}</Badge>
                </Table.Td>
                <Table.Td maw={420}>
                  <Text size="sm">{v.explanation ?? v.error}</Text>
                </Table.Td>
              </Table.Tr>
            );
          })}
        </Table.Tbody>
      </Table>
    </Stack>
  );
}

type RatioKey = "precision" | "recall" | "f1";
const better = (runs: Stats[], key: RatioKey) => Math.max(...runs.map((r) => r[key] ?? -1));

/** Every version's last run side by side, the best per metric marked, and what changed between two versions row by row. */
function CompareVersions({ runs, rows }: { runs: Stats[]; rows: AlignmentRow[] }) {
  // Until a person picks, the last two versions that ran (a new run moves them along).
  const [pickedA, setA] = useState<string | null>(null);
  const [pickedB, setB] = useState<string | null>(null);
  const a = pickedA ?? String(runs.at(-2)?.version ?? runs[0]!.version);
  const b = pickedB ?? String(runs.at(-1)!.version);
  const va = Number(a);
  const vb = Number(b);
  const right = (r: AlignmentRow, v: number) => {
    const verdict = verdictOf(r, v)?.verdict;
    return r.judgement && verdict ? verdict === r.judgement : null;
  };
  const fixed = rows.filter((r) => right(r, va) === false && right(r, vb) === true);
  const broken = rows.filter((r) => right(r, va) === true && right(r, vb) === false);
  const cell = (run: Stats, key: RatioKey) => {
    const best = run[key] !== null && run[key] === better(runs, key) && runs.length > 1;
    return (
      <Table.Td fw={best ? 700 : undefined} data-testid={`compare-${key}-v${run.version}`}>
        {formatRatio(run[key])}
        {best ? " ★ best" : ""}
      </Table.Td>
    );
  };
  return (
    <Stack gap="xs">
      <Title order={4}>Compare versions</Title>
      <Table withTableBorder aria-label="Versions compared">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Version</Table.Th>
            <Table.Th>Precision</Table.Th>
            <Table.Th>Recall</Table.Th>
            <Table.Th>F1</Table.Th>
            <Table.Th>TP / FP / FN / TN</Table.Th>
            <Table.Th>Judge errors</Table.Th>
            <Table.Th>Run</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {runs.map((r) => (
            <Table.Tr key={r.version} data-testid="compare-row">
              <Table.Td>v{r.version}</Table.Td>
              {cell(r, "precision")}
              {cell(r, "recall")}
              {cell(r, "f1")}
              <Table.Td>
                {r.truePositives} / {r.falsePositives} / {r.falseNegatives} / {r.trueNegatives}
              </Table.Td>
              <Table.Td>{r.judgeErrors}</Table.Td>
              <Table.Td>{formatTime(r.createdAt)}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      {runs.length > 1 ? (
        <>
          <Group align="flex-end">
            <Select label="From" w={120} data={runs.map((r) => `${r.version}`)} value={a} onChange={(v) => v && setA(v)} allowDeselect={false} />
            <Select label="To" w={120} data={runs.map((r) => `${r.version}`)} value={b} onChange={(v) => v && setB(v)} allowDeselect={false} />
            <Text size="sm" pb={8} data-testid="fixed-broken">
              From v{va} to v{vb}: {fixed.length} rows fixed, {broken.length} rows broken
            </Text>
          </Group>
          {[...fixed.map((r) => ({ r, kind: "fixed" })), ...broken.map((r) => ({ r, kind: "broken" }))].map(({ r, kind }) => (
            <Paper key={r.id} withBorder p="xs" radius="md">
              <Group gap="xs" wrap="nowrap" align="flex-start">
                <Badge color={kind === "fixed" ? "teal" : "red"} variant="light">
                  {kind}
                </Badge>
                <Text size="sm" lineClamp={2} style={{ flex: 1 }}>
                  {messageText(r.output)}
                </Text>
                <Text size="xs" c="dimmed">
                  you {r.judgement}; v{va} {verdictOf(r, va)?.verdict}, v{vb} {verdictOf(r, vb)?.verdict}
                </Text>
              </Group>
            </Paper>
          ))}
        </>
      ) : null}
    </Stack>
  );
}

export function AlignmentRunsTab({ criterion }: { criterion: CriterionDetail }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const runs = useQuery(trpc.criteria.alignmentRuns.queryOptions({ criterionId: criterion.id }));
  const rows = useAlignmentRows(criterion.id);
  const [shown, setShown] = useState<string | null>(null);
  const list = runs.data ?? [];
  const current = list.find((r) => String(r.version) === shown) ?? list.at(-1);
  const onFinished = (version: number) => {
    void queryClient.invalidateQueries({ queryKey: trpc.criteria.alignmentRuns.queryKey({ criterionId: criterion.id }) });
    void queryClient.invalidateQueries({ queryKey: trpc.criteria.alignmentRows.queryKey({ criterionId: criterion.id }) });
    void queryClient.invalidateQueries({ queryKey: trpc.criteria.list.queryKey() });
    setShown(String(version));
  };
  return (
    <Stack>
      <RunControl criterion={criterion} onFinished={onFinished} />
      <ErrorAlert error={runs.error ?? rows.error} />
      {runs.data && list.length === 0 ? (
        <Text c="dimmed" size="sm">
          No run yet. Label some rows, then run a version against your labels.
        </Text>
      ) : null}
      {current ? (
        <>
          <Group align="flex-end">
            <Select
              label="Results of"
              w={180}
              data={list.map((r) => ({ value: String(r.version), label: `v${r.version}` }))}
              value={String(current.version)}
              onChange={setShown}
              allowDeselect={false}
            />
            <Text size="sm" c="dimmed" pb={8}>
              run {formatTime(current.createdAt)}
            </Text>
          </Group>
          <StatsView stats={current} />
          <Disagreements rows={rows.data ?? []} version={current.version} />
          <CompareVersions runs={list} rows={rows.data ?? []} />
        </>
      ) : null}
    </Stack>
  );
}
