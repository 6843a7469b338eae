import { Badge, Button, Group, Text } from "@mantine/core";
import { RowActions } from "../../components/row-actions";
import type { ReactNode } from "react";
import { useCan } from "../../lib/session";

type Status = "ACTIVE" | "PAUSED";

export const pct = (n: number) => `${Math.round(n * 1000) / 10}%`;

/** What watches the calls (a monitor, an online evaluation): its name in bold and whether it runs. */
export function NameAndStatus({ name, status }: { name: string; status: Status }) {
  return (
    <Group gap="xs">
      <Text size="sm" fw={600}>
        {name}
      </Text>
      <Badge size="sm" variant="light" color={status === "ACTIVE" ? "teal" : "gray"}>
        {status === "ACTIVE" ? "Active" : "Paused"}
      </Badge>
    </Group>
  );
}

/**
 * A row's buttons, for members: pause or resume it, whatever else it offers, and delete it.
 * `of`: how the buttons' names end ("the evaluation of gpt-4o").
 */
export function RowControls({
  of,
  status,
  update,
  onToggle,
  onDelete,
  children,
}: {
  of: string;
  status: Status;
  update: { isPending: boolean; busy: boolean };
  onToggle(next: Status): void;
  onDelete(): void;
  children?: ReactNode;
}) {
  const canChange = useCan("member");
  if (!canChange) return null;
  const verb = status === "ACTIVE" ? "Pause" : "Resume";
  return (
    <RowActions deleteLabel={`Delete ${of}`} onDelete={onDelete}>
      <Button
        size="xs"
        variant="default"
        aria-label={`${verb} ${of}`}
        loading={update.isPending && update.busy}
        onClick={() => onToggle(status === "ACTIVE" ? "PAUSED" : "ACTIVE")}
      >
        {verb}
      </Button>
      {children}
    </RowActions>
  );
}

/** A criterion's name from a reference ("id" or "id@version"), or the reference while the names load. */
export function criterionNamer(criteria: { data?: { id: string; name: string }[] }) {
  return (ref: string) => criteria.data?.find((c) => c.id === ref.split("@")[0])?.name ?? ref;
}
