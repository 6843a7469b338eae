import { Badge, Group, Paper, Stack, Text } from "@mantine/core";
import { formatCost, formatKnownCost, formatMs, formatNumber } from "../../lib/format";
import { Message } from "../logs/conversation";
import { DATASET_MODEL, type EvaluationResult } from "./queries";

/** A model's answer to one entry with each criterion's verdict and explanation. */
export function ResultCard({ result, names, scope }: { result: EvaluationResult | undefined; names: Map<string, string>; scope: string }) {
  if (!result) return <Text c="dimmed">no answer yet</Text>;
  return (
    <Paper withBorder p="xs" radius="md" data-testid="model-result" data-model={result.model} miw={0}>
      <Group justify="space-between" mb={4}>
        <Text size="sm" fw={600} ff="monospace" style={{ wordBreak: "break-all" }}>
          {result.model === DATASET_MODEL ? "dataset (reference answer)" : result.model}
        </Text>
        <Text size="xs" c="dimmed">
          {formatMs(result.latencyMs)} · {formatNumber(result.outputTokens)} tokens ·{" "}
          {result.error ? formatCost(result.costUsd) : formatKnownCost(result.costUsd)}
        </Text>
      </Group>
      {result.error ? (
        <Text c="red" size="sm">
          {result.error}
        </Text>
      ) : (
        <Message message={result.output} scope={scope} />
      )}
      <Stack gap={4} mt={6}>
        {Object.entries(result.verdicts).map(([criterionId, v]) => (
          <Group key={criterionId} gap={6} wrap="nowrap" align="flex-start" data-testid="verdict">
            <Badge color={v.status === "error" ? "gray" : v.score >= 1 ? "teal" : "red"} variant="light" tt="none" style={{ flexShrink: 0 }}>
              {names.get(criterionId) ?? criterionId}: {v.status === "error" ? "error" : v.score >= 1 ? "PASS" : "FAIL"}
            </Badge>
            <Text size="xs">{v.status === "error" ? v.errorMessage : v.explanation}</Text>
          </Group>
        ))}
      </Stack>
    </Paper>
  );
}
