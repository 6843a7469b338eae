import { LineChart } from "@mantine/charts";
import { SimpleGrid } from "@mantine/core";
import { ChartCard, columnsOf, StackedBars } from "../../components/charts";
import { formatCompact, formatCost, formatMs, formatNumber } from "../../lib/format";
import { type GroupBy, groupKey, groupLabel, PALETTE, type Usage } from "./usage-groups";
import { bucketLabel, bucketStarts } from "./usage-search";

type Row = Record<string, number | string | null>;

/** Rows per bucket (every bucket of the range, empty ones too) with a column per series. */
function pivot(usage: Usage, split: GroupBy, tagKey: string) {
  const grouped = split !== "none";
  const groups = grouped ? usage.groups : [];
  const index = new Map(groups.map((g, i) => [groupKey(g), `g${i}`]));
  const series = grouped
    ? groups.map((g, i) => ({ name: `g${i}`, label: groupLabel(g, split, tagKey), color: PALETTE[i % PALETTE.length]! }))
    : [{ name: "g0", label: "All calls", color: PALETTE[0]! }];
  const starts = bucketStarts(new Date(usage.from), new Date(usage.to), usage.bucket);
  const at = new Map<number, { requests: Row; cost: Row; latency: Row }>();
  for (const s of starts) {
    const label = bucketLabel(s, usage.bucket);
    const zeros = Object.fromEntries(series.map((x) => [x.name, 0]));
    const nulls = Object.fromEntries(series.map((x) => [x.name, null]));
    at.set(s, { requests: { label, ...zeros }, cost: { label, ...zeros }, latency: { label, ...nulls, p50: null, p95: null } });
  }
  for (const p of usage.series) {
    const row = at.get(new Date(p.start).getTime());
    const key = grouped ? index.get(groupKey(p)) : "g0";
    if (!row || !key) continue;
    row.requests[key] = p.requests;
    row.cost[key] = p.costUsd;
    row.latency[key] = p.p95Ms;
    if (!grouped) {
      row.latency.p50 = p.p50Ms;
      row.latency.p95 = p.p95Ms;
    }
  }
  const rows = [...at.values()];
  return {
    series,
    ...columnsOf(rows, ["requests", "cost", "latency"]),
    latencySeries: grouped
      ? series
      : [
          { name: "p50", label: "p50", color: "teal.6" },
          { name: "p95", label: "p95", color: "orange.6" },
        ],
  };
}

/** The stacked bar charts: what each counts, and how its values read. */
const BARS = [
  { key: "requests", title: "Requests", what: "Calls", format: (v: number) => formatNumber(v), tick: (v: number) => formatCompact(v), width: 48 },
  { key: "cost", title: "Cost", what: "US dollars", format: (v: number) => formatCost(v), tick: (v: number) => formatCost(v), width: 64 },
] as const;

/** Requests and cost over time stacked by group, and latency percentiles. */
export function UsageCharts({ usage, split, tagKey }: { usage: Usage; split: GroupBy; tagKey: string }) {
  const d = pivot(usage, split, tagKey);
  const grouped = split !== "none";
  const per = usage.bucket === "hour" ? "hour" : "day";
  return (
    <SimpleGrid cols={{ base: 1, lg: 2 }} spacing="md">
      {BARS.map((b) => (
        <ChartCard key={b.key} title={b.title} description={`${b.what} per ${per}${grouped ? ", stacked by group" : ""}`} testId={`chart-${b.key}`}>
          <StackedBars
            h={260}
            data={d[b.key]}
            series={d.series}
            withLegend={grouped}
            format={b.format}
            yAxisProps={{ tickFormatter: b.tick, width: b.width }}
          />
        </ChartCard>
      ))}
      <ChartCard
        span
        title="Latency"
        description={grouped ? `p95 per ${per} and group (empty ${per}s are gaps)` : `p50 and p95 per ${per} (empty ${per}s are gaps)`}
        testId="chart-latency"
      >
        <LineChart
          h={220}
          data={d.latency}
          dataKey="label"
          series={d.latencySeries}
          withLegend
          curveType="monotone"
          valueFormatter={(v) => formatMs(v)}
          yAxisProps={{ tickFormatter: (v: number) => formatMs(v), width: 64 }}
          withDots={d.latency.length <= 48}
          tooltipAnimationDuration={0}
        />
      </ChartCard>
    </SimpleGrid>
  );
}
