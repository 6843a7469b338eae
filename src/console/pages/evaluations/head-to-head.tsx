import { Paper, Select, SimpleGrid, Stack, Text, Group } from "@mantine/core";
import { ErrorAlert } from "../../components/error-alert";
import { plural } from "../../lib/format";
import { DATASET_MODEL, type EvaluationDetail, useHeadToHead } from "./queries";
import { ResultCard } from "./result-card";

const modelLabel = (m: string) => (m === DATASET_MODEL ? "dataset (reference)" : m);

function Tally({ label, value, testId }: { label: string; value: number; testId: string }) {
  return (
    <Paper withBorder p="sm" radius="md" miw={0}>
      <Text size="xs" c="dimmed" style={{ wordBreak: "break-all" }}>
        {label}
      </Text>
      <Text size="xl" fw={700} data-testid={testId}>
        {value}
      </Text>
    </Paper>
  );
}

/** Two models entry by entry: who passes more criteria, and the entries where they part. */
export function HeadToHead({
  detail,
  names,
  a,
  b,
  setPair,
}: {
  detail: EvaluationDetail;
  names: Map<string, string>;
  a: string;
  b: string;
  setPair(a: string, b: string): void;
}) {
  const h2h = useHeadToHead(detail.id, a, b);
  const d = h2h.data;
  const options = detail.models.map((m) => ({ value: m, label: modelLabel(m) }));
  return (
    <Stack>
      <Group align="flex-end">
        <Select label="Model A" w={260} maw="100%" data={options} value={a} onChange={(v) => v && setPair(v, b)} allowDeselect={false} />
        <Select label="Model B" w={260} maw="100%" data={options} value={b} onChange={(v) => v && setPair(a, v)} allowDeselect={false} />
      </Group>
      {a === b ? <Text c="dimmed">Choose two different models.</Text> : null}
      <ErrorAlert error={h2h.error} />
      {d ? (
        <>
          <SimpleGrid cols={3} maw={600}>
            <Tally label={`${modelLabel(a)} wins`} value={d.aWins} testId="h2h-a-wins" />
            <Tally label={`${modelLabel(b)} wins`} value={d.bWins} testId="h2h-b-wins" />
            <Tally label="Ties" value={d.ties} testId="h2h-ties" />
          </SimpleGrid>
          <Text size="sm" c="dimmed">
            A model wins an entry when more of the criteria pass its answer. Below: the {plural(d.entries.length, "entry", "entries")} where one passes a
            criterion the other fails.
          </Text>
          {d.entries.map((e) => (
            <Paper key={e.entryId} withBorder p="sm" radius="md" data-testid="h2h-entry">
              <Text size="xs" c="dimmed" mb={4}>
                Entry {e.entryId} · score {e.scoreA} vs {e.scoreB}
              </Text>
              <SimpleGrid cols={{ base: 1, sm: 2 }}>
                <ResultCard result={e.a} names={names} scope={`h2h-${e.entryId}-a`} />
                <ResultCard result={e.b} names={names} scope={`h2h-${e.entryId}-b`} />
              </SimpleGrid>
            </Paper>
          ))}
        </>
      ) : null}
    </Stack>
  );
}
