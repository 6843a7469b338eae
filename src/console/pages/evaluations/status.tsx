import { Badge, Group, Progress, Text } from "@mantine/core";
import { formatNumber } from "../../lib/format";
import { ACTIVE, type Evaluation } from "./queries";

// Each status in words (the badge's text), its colour only a second cue.
const STATUS_COLORS: Record<string, string> = { QUEUED: "blue", RUNNING: "yellow", DONE: "teal", CANCELLED: "gray", ERROR: "red" };

export function EvaluationStatus({ status }: { status: string }) {
  return (
    <Badge color={STATUS_COLORS[status] ?? "gray"} variant="light" data-testid="evaluation-status">
      {status}
    </Badge>
  );
}

export function EvaluationProgress({ evaluation }: { evaluation: Pick<Evaluation, "progress" | "status"> }) {
  const { done, total } = evaluation.progress;
  return (
    <Group gap="xs" wrap="nowrap">
      <Progress value={total ? (100 * done) / total : 0} w={120} animated={ACTIVE.has(evaluation.status)} aria-label="Evaluation progress" />
      <Text size="xs" c="dimmed" data-testid="evaluation-progress">
        {formatNumber(done)} / {formatNumber(total)}
      </Text>
    </Group>
  );
}
