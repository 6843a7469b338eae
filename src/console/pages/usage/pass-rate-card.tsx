import { LineChart } from "@mantine/charts";
import { Anchor, Paper, Table, Text, Title } from "@mantine/core";
import { Link } from "@tanstack/react-router";
import { formatNumber } from "../../lib/format";
import { usePassRates } from "../monitors/online-evals-queries";
import { PALETTE } from "./usage-groups";

/** Pass rates are kept over at most this many days: a longer range shows its last 31 days. */
const MAX_DAYS = 31;
const DAY_MS = 86_400_000;
/** Lines drawn at most (the most judged groups); the table lists every group. */
const MAX_LINES = 8;
const pct = (n: number | null) => (n === null ? "–" : `${Math.round(n * 1000) / 10}%`);

function label(start: number, bucketMs: number): string {
  const iso = new Date(start).toISOString();
  return bucketMs >= DAY_MS ? iso.slice(0, 10) : `${iso.slice(5, 10)} ${iso.slice(11, 16)}`;
}

/**
 * Online evaluation's pass rate over the range, per model (or per route or route version when the
 * page is split by those): from routes' judged samples and models' online evaluations.
 */
export function PassRateCard({ from, to, split }: { from: Date; to: Date; split: string }) {
  const groupBy = split === "route" || split === "routeVersion" ? split : "model";
  const start = new Date(Math.max(from.getTime(), to.getTime() - MAX_DAYS * DAY_MS));
  const rates = usePassRates({ from: start, to, groupBy }, { enabled: true });
  const data = rates.data;
  if (!data) return null;
  const shortened = start.getTime() > from.getTime();
  const what = groupBy === "model" ? "model" : groupBy === "route" ? "route" : "route version";
  if (!data.groups.length) {
    return (
      <Paper withBorder radius="md" p="md" data-testid="pass-rate-card">
        <Title order={4}>Pass rate</Title>
        <Text size="sm" c="dimmed">
          No call was judged online over this range.{" "}
          <Anchor size="sm" underline="always" renderRoot={(props) => <Link {...props} to="/monitors" />}>
            Evaluate a model online
          </Anchor>{" "}
          or give a route a judge to see how often its answers pass your criteria.
        </Text>
      </Paper>
    );
  }
  const lines = data.groups.slice(0, MAX_LINES);
  const index = new Map(lines.map((g, i) => [g.group ?? "", `g${i}`]));
  // Every bucket of the window, so the time axis spans the range as the other charts do.
  const rows = new Map<number, Record<string, number | string | null>>();
  const bucketMs = data.bucketMs;
  for (let t = Math.floor(new Date(data.from).getTime() / bucketMs) * bucketMs; t < new Date(data.to).getTime(); t += bucketMs) {
    rows.set(t, { label: label(t, bucketMs) });
  }
  for (const p of data.series) {
    const key = index.get(p.group ?? "");
    if (!key || p.passRate === null) continue;
    const t = new Date(p.start).getTime();
    const row = rows.get(t) ?? { label: label(t, bucketMs) };
    row[key] = Math.round(p.passRate * 1000) / 10;
    rows.set(t, row);
  }
  const points = [...rows.entries()].sort((a, b) => a[0] - b[0]).map(([, r]) => r);
  return (
    <Paper withBorder radius="md" p="md" data-testid="pass-rate-card">
      <Title order={4}>Pass rate</Title>
      <Text size="xs" c="dimmed" mb="sm">
        The share of judged answers that passed every criterion, per {what}
        {shortened ? ` (the last ${MAX_DAYS} days of the range)` : ""}. Judged by online evaluations and routes' judges, off the answers' path.
      </Text>
      <LineChart
        h={220}
        data={points}
        dataKey="label"
        series={lines.map((g, i) => ({ name: `g${i}`, label: g.group ?? "(none)", color: PALETTE[i % PALETTE.length]! }))}
        withLegend
        curveType="linear"
        connectNulls
        valueFormatter={(v) => `${v}%`}
        yAxisProps={{ domain: [0, 100], width: 48 }}
        withDots={points.length <= 48}
        tooltipAnimationDuration={0}
      />
      <Table aria-label="Pass rate by group" mt="sm" data-testid="pass-rate-table">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{what[0]!.toUpperCase() + what.slice(1)}</Table.Th>
            <Table.Th ta="right">Judged</Table.Th>
            <Table.Th ta="right">Passed</Table.Th>
            <Table.Th ta="right">Pass rate</Table.Th>
            <Table.Th ta="right">Judge errors</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {data.groups.map((g) => (
            <Table.Tr key={g.group ?? ""} data-group={g.group ?? ""} data-pass-rate={g.passRate ?? ""}>
              <Table.Td>{g.group ?? "(none)"}</Table.Td>
              <Table.Td ta="right">{formatNumber(g.judged)}</Table.Td>
              <Table.Td ta="right">{formatNumber(g.passed)}</Table.Td>
              <Table.Td ta="right">{pct(g.passRate)}</Table.Td>
              <Table.Td ta="right">{formatNumber(g.errors)}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Paper>
  );
}
