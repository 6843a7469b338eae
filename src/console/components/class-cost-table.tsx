import { Table, Text } from "@mantine/core";
import { formatCost, formatNumber } from "../lib/format";

/** The billed token classes in bill order, as the console names them (the server's `<class>_tokens`, `<class>_usd`). */
const CLASSES: [string, string][] = [
  ["input", "Input"],
  ["cache_read", "Cache reads"],
  ["cache_write_5m", "Cache writes, 5 min"],
  ["cache_write_1h", "Cache writes, 1 hour"],
  ["audio_input", "Audio input"],
  ["output", "Output"],
  ["reasoning", "Reasoning"],
  ["audio_output", "Audio output"],
  ["compute", "Call time"],
];

/**
 * Tokens and cost per billed class: a log's, or a usage range's sums. `total`: the cost the classes
 * add up to; what is not in any class (logs older than the classes) is shown as its own line.
 */
export function ClassCostTable({ classes, total, caption }: { classes: Record<string, number> | null | undefined; total: number | null; caption: string }) {
  const rows = CLASSES.filter(([c]) => (classes?.[`${c}_tokens`] ?? classes?.[`${c}_seconds`] ?? 0) > 0 || (classes?.[`${c}_usd`] ?? 0) > 0);
  if (!rows.length) return null;
  const inClasses = rows.reduce((s, [c]) => s + (classes?.[`${c}_usd`] ?? 0), 0);
  const rest = total != null ? total - inClasses : 0;
  return (
    <Table withTableBorder striped={false} data-testid="class-costs" style={{ fontVariantNumeric: "tabular-nums" }} fz="sm" maw={520}>
      <Table.Caption>{caption}</Table.Caption>
      <Table.Thead>
        <Table.Tr>
          <Table.Th>Token class</Table.Th>
          <Table.Th ta="right">Tokens</Table.Th>
          <Table.Th ta="right">Cost</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {rows.map(([c, label]) => {
          const usd = classes?.[`${c}_usd`];
          return (
            <Table.Tr key={c} data-class={c}>
              <Table.Td>{label}</Table.Td>
              <Table.Td ta="right">
                {c === "compute" ? `${formatNumber(classes?.compute_seconds ?? 0)} s` : formatNumber(classes?.[`${c}_tokens`] ?? 0)}
              </Table.Td>
              <Table.Td ta="right" title={usd == null ? "no price" : `$${usd}`}>
                {usd == null ? (
                  <Text span size="sm" c="dimmed">
                    no price
                  </Text>
                ) : (
                  formatCost(usd)
                )}
              </Table.Td>
            </Table.Tr>
          );
        })}
        {Math.abs(rest) > 1e-9 ? (
          <Table.Tr data-class="unsplit">
            <Table.Td>Not split by class</Table.Td>
            <Table.Td ta="right">–</Table.Td>
            <Table.Td ta="right">{formatCost(rest)}</Table.Td>
          </Table.Tr>
        ) : null}
      </Table.Tbody>
    </Table>
  );
}
