import { Alert, Paper, SimpleGrid, Stack, Table, Text } from "@mantine/core";
import { formatNumber } from "../../lib/format";
import { formatRatio } from "./format";
import type { AlignmentStats } from "./queries";

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
export function StatsView({ stats }: { stats: AlignmentStats }) {
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
            <Table.Td />
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
