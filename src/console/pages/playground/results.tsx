import { Alert, Anchor, Badge, Button, Group, Paper, Select, SimpleGrid, Stack, Text } from "@mantine/core";
import { Link } from "@tanstack/react-router";
import { useState } from "react";
import { ErrorAlert } from "../../components/error-alert";
import { formatCost, formatMs, formatNumber } from "../../lib/format";
import { Message } from "../logs/conversation";
import { type Column, type Done, useCriteriaList, useDatasetsList, useRunLog, useSaveEntry } from "./queries";

/** Cost and the log of a finished run, once the log is written (it is, within a moment). */
function RunFooter({ done }: { done: Done }) {
  const log = useRunLog(done.completionId);
  const row = log.data?.logs[0];
  return (
    <Group gap="md" data-testid="run-stats">
      <Text size="xs">latency {formatMs(done.latencyMs)}</Text>
      <Text size="xs">
        tokens {formatNumber(done.usage?.promptTokens)} in / {formatNumber(done.usage?.completionTokens)} out
      </Text>
      <Text size="xs">cost {formatCost(row?.costUsd)}</Text>
      {row ? (
        <Anchor size="xs" renderRoot={(props) => <Link {...props} to="/logs/$logId" params={{ logId: row.id }} />}>
          open its log
        </Anchor>
      ) : null}
    </Group>
  );
}

type Verdicts = Record<string, { status?: string; score?: number | null; explanation?: string | null; error?: string }>;

/** `criteria_results` of a choice: per criterion id, a score (1 PASS, 0 FAIL) and the judge's explanation. */
function CriteriaResults({ value, names }: { value: unknown; names: Map<string, string> }) {
  if (!value || typeof value !== "object") return null;
  return (
    <Stack gap={2} data-testid="criteria-results">
      {Object.entries(value as Verdicts).map(([id, r]) => {
        const verdict = r.status !== "success" ? "error" : r.score === 1 ? "PASS" : "FAIL";
        return (
          <Stack key={id} gap={0}>
            <Badge color={verdict === "PASS" ? "teal" : verdict === "FAIL" ? "red" : "gray"} variant="light" tt="none">
              {names.get(id.split("@")[0]!) ?? id}: {verdict}
            </Badge>
            <Text size="xs" c="dimmed" pl={4}>
              {r.explanation ?? r.error ?? ""}
            </Text>
          </Stack>
        );
      })}
    </Stack>
  );
}

/**
 * One column per model, streamed as it answers; a finished choice can be saved, with the
 * conversation before it, as an entry of a dataset.
 */
export function Results({ columns, conversation, tools }: { columns: Column[]; conversation: Record<string, unknown>[]; tools: unknown[] | null }) {
  const criteria = useCriteriaList();
  const datasets = useDatasetsList();
  const save = useSaveEntry();
  const [datasetId, setDatasetId] = useState<string | null>(null);
  const names = new Map((criteria.data ?? []).map((c) => [c.id, c.name]));
  return (
    <Stack gap="sm">
      {columns.length === 0 ? (
        <Paper withBorder p="xl" radius="md">
          <Text c="dimmed">Write a conversation, choose models, and press Run (or Ctrl+Enter). Outputs stream in here, one column per model.</Text>
        </Paper>
      ) : null}
      <SimpleGrid cols={{ base: 1, md: Math.min(Math.max(columns.length, 1), 4) }}>
        {columns.map((c, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: one column per chosen model, by position
          <Paper key={i} withBorder p="sm" radius="md" data-testid={`column-${i}`} miw={0}>
            <Group justify="space-between" mb="xs" wrap="nowrap">
              <Text fw={600} ff="monospace" size="sm" style={{ wordBreak: "break-all" }}>
                {c.model}
              </Text>
              {c.running ? <Badge variant="light">running</Badge> : null}
            </Group>
            {c.error ? (
              <Alert color="red" role="alert" mb="xs">
                {c.error}
              </Alert>
            ) : null}
            <Stack gap="xs">
              {(
                c.done?.choices ??
                c.texts.map((t, index) => ({ index, message: { role: "assistant", content: t } as unknown, finishReason: null, criteriaResults: null }))
              ).map((choice) => (
                <Stack key={choice.index} gap={4} data-testid="choice">
                  <Message message={choice.message} scope={`pg-${i}-${choice.index}`} />
                  <CriteriaResults value={choice.criteriaResults} names={names} />
                  {c.done && choice.message ? (
                    <Button
                      size="xs"
                      variant="default"
                      w="fit-content"
                      disabled={!datasetId}
                      loading={save.isPending}
                      onClick={() => datasetId && save.mutate({ datasetId, messages: [...conversation, choice.message], tools })}
                    >
                      Save as dataset entry
                    </Button>
                  ) : null}
                </Stack>
              ))}
              {c.done ? <RunFooter done={c.done} /> : null}
            </Stack>
          </Paper>
        ))}
      </SimpleGrid>
      {columns.some((c) => c.done) ? (
        <Select
          label="Save outputs to dataset"
          data={(datasets.data ?? []).map((d) => ({ value: d.id, label: d.name }))}
          value={datasetId}
          onChange={setDatasetId}
          placeholder="choose a dataset"
          maw={320}
        />
      ) : null}
      <ErrorAlert error={datasets.error} />
    </Stack>
  );
}
