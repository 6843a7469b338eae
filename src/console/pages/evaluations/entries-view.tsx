import { Button, Group, Loader, Paper, SimpleGrid, Stack, Switch, Text } from "@mantine/core";
import { ErrorAlert } from "../../components/error-alert";
import { Message, toolNamesOf } from "../logs/conversation";
import { EvaluationLogsLink } from "./logs-link";
import { type EvaluationDetail, useEvaluationEntries } from "./queries";
import { ResultCard } from "./result-card";

/** The entries one by one: the input, then every model's answer side by side with its verdicts. */
export function EntriesView({
  detail,
  names,
  differ,
  setDiffer,
}: {
  detail: EvaluationDetail;
  names: Map<string, string>;
  differ: boolean;
  setDiffer(v: boolean): void;
}) {
  const { query: entries, items: rows } = useEvaluationEntries(detail.id, differ, detail.progress.done);
  return (
    <Stack>
      <Switch
        label="Only entries where the models' verdicts differ (or something failed)"
        checked={differ}
        onChange={(e) => setDiffer(e.currentTarget.checked)}
      />
      <ErrorAlert error={entries.error} />
      {entries.isPending ? <Loader aria-label="Loading entries" /> : null}
      {entries.data && rows.length === 0 ? <Text c="dimmed">No entries {differ ? "where the models differ" : "judged yet"}.</Text> : null}
      {rows.map((e) => {
        const input = (e.input ?? []) as unknown[];
        const toolNames = toolNamesOf(input);
        return (
          <Paper key={e.entryId} withBorder p="sm" radius="md" data-testid="evaluation-entry" data-entry-id={e.entryId}>
            <Group justify="space-between" mb={4} gap="xs">
              <Text size="xs" c="dimmed">
                Entry {e.entryId}
              </Text>
              <EvaluationLogsLink evaluationId={detail.id}>Its calls in the logs (answers and judges)</EvaluationLogsLink>
            </Group>
            <Stack gap={4} mb="sm">
              {e.input ? (
                input.map((m, i) => (
                  // biome-ignore lint/suspicious/noArrayIndexKey: messages have no ids; their order is their identity
                  <Message key={i} message={m} scope={`${e.entryId}-in-${i}`} toolNames={toolNames} />
                ))
              ) : (
                <Text size="sm" c="dimmed">
                  The entry was deleted from the dataset since.
                </Text>
              )}
            </Stack>
            <SimpleGrid cols={{ base: 1, md: Math.min(detail.models.length, 3) }}>
              {detail.models.map((m) => (
                <ResultCard key={m} result={e.results.find((r) => r.model === m)} names={names} scope={`${e.entryId}-${m}`} />
              ))}
            </SimpleGrid>
          </Paper>
        );
      })}
      {entries.hasNextPage ? (
        <Group justify="center">
          <Button variant="default" onClick={() => void entries.fetchNextPage()} loading={entries.isFetchingNextPage}>
            Load more entries
          </Button>
        </Group>
      ) : null}
    </Stack>
  );
}
