import { Badge } from "@mantine/core";

const STATUS_COLORS: Record<string, string> = { PENDING: "gray", QUEUED: "blue", TRAINING: "yellow", DEPLOYED: "teal", ERROR: "red" };

/** A fine-tune's status as its word (the colour only repeats it). */
export function ModelStatus({ status }: { status: string }) {
  return (
    <Badge color={STATUS_COLORS[status] ?? "gray"} variant="light" data-testid="model-status">
      {status}
    </Badge>
  );
}
