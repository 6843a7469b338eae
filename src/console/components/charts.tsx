import { BarChart } from "@mantine/charts";
import { Paper, Text, Title } from "@mantine/core";
import type { ReactNode } from "react";

/** A chart in a bordered card, under its title and a line on what it counts. `span`: the grid's whole width. */
export function ChartCard({
  title,
  description,
  testId,
  span,
  small,
  children,
}: {
  title: string;
  description: string;
  testId: string;
  span?: boolean;
  /** A smaller title, for a page's inner section. */
  small?: boolean;
  children: ReactNode;
}) {
  return (
    <Paper withBorder radius={small ? undefined : "md"} p="md" data-testid={testId} style={span ? { gridColumn: "1 / -1" } : undefined}>
      <Title order={small ? 5 : 4}>{title}</Title>
      <Text size="xs" c="dimmed" mb={small ? "xs" : "sm"}>
        {description}
      </Text>
      {children}
    </Paper>
  );
}

type Series = { name: string; label: string; color: string }[];

/** Bars per time bucket ("label"), stacked by series. */
export function StackedBars({
  h,
  data,
  series,
  withLegend,
  format,
  yAxisProps,
}: {
  h: number;
  data: Record<string, unknown>[];
  series: Series;
  withLegend: boolean;
  format(v: number): string;
  yAxisProps: Record<string, unknown>;
}) {
  return (
    <BarChart
      h={h}
      data={data}
      dataKey="label"
      type="stacked"
      series={series}
      withLegend={withLegend}
      valueFormatter={format}
      yAxisProps={yAxisProps}
      tooltipAnimationDuration={0}
    />
  );
}

/** Each chart's rows, from rows that hold a row for every chart: `{ requests: Row[], cost: Row[] }`. */
export function columnsOf<K extends string, R>(rows: Record<K, R>[], keys: readonly K[]): Record<K, R[]> {
  return Object.fromEntries(keys.map((k) => [k, rows.map((r) => r[k])])) as Record<K, R[]>;
}
