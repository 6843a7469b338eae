import { LineChart } from "@mantine/charts";
import { SimpleGrid } from "@mantine/core";
import { ChartCard, columnsOf, StackedBars } from "../../components/charts";
import { formatMs, formatNumber } from "../../lib/format";
import { PALETTE } from "../usage/usage-groups";
import type { RouteSeries } from "./queries";

type Row = Record<string, number | string | null>;
const NO_VERSION = "(no version)";

/** A bucket's label: day and time under a day, the date otherwise (UTC, as the rest of the console's charts). */
function labelOf(start: number, bucketMs: number): string {
  const iso = new Date(start).toISOString();
  return bucketMs >= 86_400_000 ? iso.slice(0, 10) : `${iso.slice(5, 10)} ${iso.slice(11, 16)}`;
}

/** Rows per bucket (every bucket of the window, empty ones too) with a column per version. */
function pivot(series: RouteSeries) {
  const versions = [...new Set(series.points.map((p) => p.version ?? NO_VERSION))].sort();
  const lines = versions.map((v, i) => ({ name: `v${i}`, label: v, color: PALETTE[i % PALETTE.length]! }));
  const column = new Map(versions.map((v, i) => [v, `v${i}`]));
  const first = Math.floor(new Date(series.from).getTime() / series.bucketMs) * series.bucketMs;
  const end = new Date(series.to).getTime();
  const rows = new Map<number, { requests: Row; passRate: Row; errorRate: Row; p95: Row }>();
  for (let s = first; s <= end; s += series.bucketMs) {
    const label = labelOf(s, series.bucketMs);
    const nulls = Object.fromEntries(lines.map((l) => [l.name, null]));
    const zeros = Object.fromEntries(lines.map((l) => [l.name, 0]));
    rows.set(s, { requests: { label, ...zeros }, passRate: { label, ...nulls }, errorRate: { label, ...nulls }, p95: { label, ...nulls } });
  }
  for (const p of series.points) {
    const row = rows.get(new Date(p.start).getTime());
    const key = column.get(p.version ?? NO_VERSION);
    if (!row || !key) continue;
    row.requests[key] = p.requests;
    if (p.passRate !== null) row.passRate[key] = Math.round(p.passRate * 1000) / 10;
    if (p.requests) row.errorRate[key] = Math.round(p.errorRate * 1000) / 10;
    row.p95[key] = p.latencyP95Ms;
  }
  const all = [...rows.values()];
  return {
    lines,
    ...columnsOf(all, ["requests", "passRate", "errorRate", "p95"]),
  };
}

/** Each version's calls, pass rate (when the route is judged), error rate and p95 per time bucket. */
export function RouteCharts({ series, judged }: { series: RouteSeries; judged: boolean }) {
  const d = pivot(series);
  const per = labelOfBucket(series.bucketMs);
  const dots = d.requests.length <= 30;
  const percent = (v: number) => `${v}%`;
  const line = (data: Row[], format: (v: number) => string, max?: number) => (
    <LineChart
      h={180}
      data={data}
      dataKey="label"
      series={d.lines}
      withLegend
      connectNulls={false}
      curveType="linear"
      withDots={dots}
      valueFormatter={format}
      yAxisProps={{ tickFormatter: format, width: 52, ...(max ? { domain: [0, max] } : {}) }}
      tooltipAnimationDuration={0}
    />
  );
  return (
    <SimpleGrid cols={{ base: 1, lg: 2 }} spacing="md">
      {judged ? (
        <ChartCard
          small
          title="Pass rate"
          description={`Share of the judged sample passing every criterion, per ${per} (gaps: none judged)`}
          testId="chart-pass-rate"
        >
          {line(d.passRate, percent, 100)}
        </ChartCard>
      ) : null}
      <ChartCard small title="Calls" description={`Logged calls per ${per} and version`} testId="chart-route-requests">
        <StackedBars h={180} data={d.requests} series={d.lines} withLegend format={(v) => formatNumber(v)} yAxisProps={{ width: 52 }} />
      </ChartCard>
      <ChartCard small title="Error rate" description={`Calls ending in 400 or more (or no answer), per ${per}`} testId="chart-error-rate">
        {line(d.errorRate, percent)}
      </ChartCard>
      <ChartCard small title="Latency p95" description={`Per ${per} and version`} testId="chart-route-latency">
        {line(d.p95, (v) => formatMs(v))}
      </ChartCard>
    </SimpleGrid>
  );
}

function labelOfBucket(ms: number): string {
  if (ms >= 86_400_000) return "day";
  if (ms >= 3_600_000) return ms === 3_600_000 ? "hour" : `${ms / 3_600_000} hours`;
  return ms === 60_000 ? "minute" : `${ms / 60_000} minutes`;
}
