import { Badge } from "@mantine/core";

// Filled in dark shades with white text, yellow with black (autoContrast): AA contrast in both themes,
// which the light variant does not reach.
const STATUS_COLORS: Record<string, string> = { PENDING: "gray.7", QUEUED: "blue.9", TRAINING: "yellow.4", DEPLOYED: "teal.9", ERROR: "red.9" };

/** A fine-tune's status as its word (the colour only repeats it). */
export function ModelStatus({ status }: { status: string }) {
  return (
    <Badge color={STATUS_COLORS[status] ?? "gray.7"} variant="filled" autoContrast data-testid="model-status">
      {status}
    </Badge>
  );
}
