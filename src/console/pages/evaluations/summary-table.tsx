import { Badge, Group, Table, Text } from "@mantine/core";
import { formatKnownCost, formatMs, formatNumber } from "../../lib/format";
import { DATASET_MODEL, type EvaluationDetail, type SummaryRow } from "./queries";

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
  // Unknown (no price, or only some answers priced) is said so and never ranked.
  { key: "cost", label: "Cost", value: (r) => (r.unpricedCalls ? null : r.costUsd), show: (r) => formatKnownCost(r.costUsd, r.unpricedCalls), higher: false },
  { key: "latency", label: "Mean latency", value: (r) => r.meanLatencyMs, show: (r) => formatMs(r.meanLatencyMs), higher: false },
];

/**
 * The best value of each column per criterion, among the models compared: the dataset's own
 * answers are the reference, not a contender (they cost nothing and take no time), so never ranked.
 */
export function bestValues(detail: EvaluationDetail): Map<string, number> {
  const best = new Map<string, number>();
  for (const col of COLUMNS) {
    for (const c of detail.criteria) {
      const values = detail.summary
        .filter((r) => r.criterionId === c.criterionId && r.model !== DATASET_MODEL)
        .map(col.value)
        .filter((v): v is number => v != null);
      if (values.length > 1 && new Set(values).size > 1) best.set(`${col.key}:${c.criterionId}`, col.higher ? Math.max(...values) : Math.min(...values));
    }
  }
  return best;
}

/** One row per model and criterion; per criterion, the best value of each column is marked (★, bold). */
export function SummaryTable({ detail, names }: { detail: EvaluationDetail; names: Map<string, string> }) {
  const best = bestValues(detail);
  return (
    <Table.ScrollContainer minWidth={960}>
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
          {detail.summary.map((r) => {
            const reference = r.model === DATASET_MODEL;
            return (
              <Table.Tr key={`${r.criterionId}:${r.model}`} data-testid="summary-row" data-model={r.model} data-criterion={r.criterionId}>
                <Table.Td>
                  {names.get(r.criterionId) ?? r.criterionId} v{detail.criteria.find((c) => c.criterionId === r.criterionId)?.version}
                </Table.Td>
                <Table.Td>
                  <Group gap={6} wrap="nowrap">
                    <Text size="sm" ff="monospace">
                      {r.model}
                    </Text>
                    {reference ? (
                      <Badge
                        variant="outline"
                        color="gray"
                        tt="none"
                        title="The dataset entries' own answers: the reference, not ranked"
                        data-testid="reference"
                      >
                        reference
                      </Badge>
                    ) : null}
                  </Group>
                </Table.Td>
                {COLUMNS.map((c) => {
                  const isBest = !reference && best.get(`${c.key}:${r.criterionId}`) === c.value(r) && c.value(r) != null;
                  return (
                    <Table.Td key={c.key} fw={isBest ? 700 : undefined} data-testid={`summary-${c.key}`} data-best={isBest || undefined}>
                      {c.show(r)}
                      {isBest ? " ★" : ""}
                    </Table.Td>
                  );
                })}
              </Table.Tr>
            );
          })}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
