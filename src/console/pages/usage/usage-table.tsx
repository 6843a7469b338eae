import { Paper, Table, Text, Title } from "@mantine/core";
import { formatKnownCost, formatMs, formatNumber } from "../../lib/format";
import { type Figures, type GroupBy, groupLabel, type Usage } from "./usage-groups";

const SPLIT_TITLE: Record<GroupBy, string> = {
  none: "All calls",
  model: "Model",
  provider: "Provider",
  source: "Source",
  api: "API",
  tag: "Tag",
  route: "Route",
  routeVersion: "Route version",
};

/** The sum, saying how many answers had no price; "no price" when none of them had one (never $0). */
const costText = (f: Figures) => (f.unpriced && !f.costUsd && f.unpriced >= f.requests - f.errors ? "no price" : formatKnownCost(f.costUsd, f.unpriced));

const errorRate = (f: Figures) => (f.requests ? `${((f.errors / f.requests) * 100).toFixed(1)}%` : "–");

function Cells({ f }: { f: Figures }) {
  return (
    <>
      <Table.Td ta="right" data-col="requests" data-value={f.requests}>
        {formatNumber(f.requests)}
      </Table.Td>
      <Table.Td ta="right" data-col="errors" data-value={f.errors}>
        {formatNumber(f.errors)} ({errorRate(f)})
      </Table.Td>
      <Table.Td ta="right" data-col="inputTokens" data-value={f.inputTokens}>
        {formatNumber(f.inputTokens)}
      </Table.Td>
      <Table.Td ta="right" data-col="outputTokens" data-value={f.outputTokens}>
        {formatNumber(f.outputTokens)}
      </Table.Td>
      <Table.Td ta="right" data-col="costUsd" data-value={f.costUsd} title={String(f.costUsd)}>
        {costText(f)}
      </Table.Td>
      <Table.Td ta="right" data-col="p50Ms">
        {formatMs(f.p50Ms)}
      </Table.Td>
      <Table.Td ta="right" data-col="p95Ms">
        {formatMs(f.p95Ms)}
      </Table.Td>
    </>
  );
}

/** One row per group over the whole range, and the totals. */
export function UsageTable({ usage, split, tagKey, totalLabel = "Total" }: { usage: Usage; split: GroupBy; tagKey: string; totalLabel?: string }) {
  const title = split === "tag" ? `Tag ${tagKey}` : SPLIT_TITLE[split];
  return (
    <Paper withBorder radius="md" p="md">
      <Title order={4} mb="sm">
        {split === "none" ? "Totals" : `By ${title.toLowerCase()}`}
      </Title>
      <Table.ScrollContainer minWidth={600}>
        <Table striped highlightOnHover data-testid="usage-table" aria-label={split === "none" ? "Usage totals" : `Usage by ${title.toLowerCase()}`}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{title}</Table.Th>
              <Table.Th ta="right">Requests</Table.Th>
              <Table.Th ta="right">Errors (rate)</Table.Th>
              <Table.Th ta="right">Input tokens</Table.Th>
              <Table.Th ta="right">Output tokens</Table.Th>
              <Table.Th ta="right">Cost</Table.Th>
              <Table.Th ta="right">p50</Table.Th>
              <Table.Th ta="right">p95</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {usage.groups.map((g) => {
              const label = groupLabel(g, split, tagKey);
              return (
                <Table.Tr key={label} data-group={g.other ? "\u0000other" : (g.group ?? "")}>
                  <Table.Td>
                    <Text size="sm" ff={split === "model" ? "monospace" : undefined} fs={g.group === null || g.other ? "italic" : undefined}>
                      {label}
                    </Text>
                  </Table.Td>
                  <Cells f={g} />
                </Table.Tr>
              );
            })}
          </Table.Tbody>
          <Table.Tfoot>
            <Table.Tr data-group="total" fw={700}>
              <Table.Td>{totalLabel}</Table.Td>
              <Cells f={usage.totals} />
            </Table.Tr>
          </Table.Tfoot>
        </Table>
      </Table.ScrollContainer>
    </Paper>
  );
}
