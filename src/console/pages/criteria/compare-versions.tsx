import { Badge, Group, Paper, Select, Stack, Table, Text, Title } from "@mantine/core";
import { When } from "../../components/when";
import { DataTable } from "../../components/data-table";
import { useState } from "react";
import { plural } from "../../lib/format";
import { verdictOf } from "./disagreements";
import { formatRatio } from "./format";
import type { AlignmentRow, AlignmentStats } from "./queries";
import { ConversationPreview, OutputPreview } from "./row-view";

type RatioKey = "precision" | "recall" | "f1";
const better = (runs: AlignmentStats[], key: RatioKey) => Math.max(...runs.map((r) => r[key] ?? -1));

/** A row one version judged rightly and the other wrongly: the conversation, the output, the verdicts. */
function ChangedRow({ row, kind, from, to }: { row: AlignmentRow; kind: "fixed" | "broken"; from: number; to: number }) {
  return (
    <Paper withBorder p="xs" radius="md" data-testid="changed-row" data-kind={kind}>
      <Group gap="sm" wrap="nowrap" align="flex-start">
        <Badge color={kind === "fixed" ? "teal" : "red"} variant="light" style={{ flexShrink: 0 }}>
          {kind}
        </Badge>
        <Stack gap={4} style={{ flex: 1, minWidth: 0 }}>
          <ConversationPreview messages={row.messages} />
          <Text size="xs" fw={700}>
            Output
          </Text>
          <OutputPreview output={row.output} />
        </Stack>
        <Text size="xs" c="dimmed" maw={200}>
          you {row.judgement}; v{from} {verdictOf(row, from)?.verdict}, v{to} {verdictOf(row, to)?.verdict}
        </Text>
      </Group>
    </Paper>
  );
}

/** Every version's last run side by side, the best per metric marked, and what changed between two versions row by row. */
export function CompareVersions({ runs, rows }: { runs: AlignmentStats[]; rows: AlignmentRow[] }) {
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
  const cell = (run: AlignmentStats, key: RatioKey) => {
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
      <Title order={3} size="h4">
        Compare versions
      </Title>
      <DataTable
        label="Versions compared"
        withTableBorder
        minWidth={640}
        columns={["Version", "Precision", "Recall", "F1", "TP / FP / FN / TN", "Judge errors", "Run"]}
        rows={runs}
        row={(r) => (
          <Table.Tr key={r.version} data-testid="compare-row">
            <Table.Td>v{r.version}</Table.Td>
            {cell(r, "precision")}
            {cell(r, "recall")}
            {cell(r, "f1")}
            <Table.Td>
              {r.truePositives} / {r.falsePositives} / {r.falseNegatives} / {r.trueNegatives}
            </Table.Td>
            <Table.Td>{r.judgeErrors}</Table.Td>
            <Table.Td>
              <When value={r.createdAt} />
            </Table.Td>
          </Table.Tr>
        )}
      />
      {runs.length > 1 ? (
        <>
          <Group align="flex-end">
            <Select label="From" w={120} data={runs.map((r) => `${r.version}`)} value={a} onChange={(v) => v && setA(v)} allowDeselect={false} />
            <Select label="To" w={120} data={runs.map((r) => `${r.version}`)} value={b} onChange={(v) => v && setB(v)} allowDeselect={false} />
            <Text size="sm" pb={8} data-testid="fixed-broken">
              From v{va} to v{vb}: {plural(fixed.length, "row")} fixed, {plural(broken.length, "row")} broken
            </Text>
          </Group>
          {fixed.map((r) => (
            <ChangedRow key={r.id} row={r} kind="fixed" from={va} to={vb} />
          ))}
          {broken.map((r) => (
            <ChangedRow key={r.id} row={r} kind="broken" from={va} to={vb} />
          ))}
        </>
      ) : null}
    </Stack>
  );
}
