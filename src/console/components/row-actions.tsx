import { Button, Group } from "@mantine/core";
import type { ReactNode } from "react";
import { MayButton } from "./may-button";

/**
 * The buttons at the end of a table row, right-aligned on one line; the last deletes the row when
 * `onDelete` is given (named `deleteLabel`, worded `deleteText`).
 */
export function RowActions({
  children,
  onDelete,
  deleteLabel = "Delete",
  deleteText,
  deleteMay,
}: {
  children?: ReactNode;
  onDelete?: () => void;
  deleteLabel?: string;
  deleteText?: string;
  /** The procedure the delete calls: the button is disabled, saying who may, for a role that may not. */
  deleteMay?: string;
}) {
  return (
    <Group gap="xs" justify="flex-end" wrap="nowrap">
      {children}
      {onDelete ? (
        deleteMay ? (
          <MayButton may={deleteMay} size="xs" variant="light" color="red" aria-label={deleteLabel} onClick={onDelete}>
            {deleteText ?? "Delete"}
          </MayButton>
        ) : (
          <DeleteButton label={deleteLabel} onClick={onDelete}>
            {deleteText}
          </DeleteButton>
        )
      ) : null}
    </Group>
  );
}

/** A row's button, named for the row it acts on (`label`): "Rename support v2". */
export function RowButton({ label, onClick, children, may }: { label: string; onClick(): void; children: ReactNode; may?: string }) {
  // `may`: the procedure it leads to; disabled, saying who may, for a role that may not.
  return may ? (
    <MayButton may={may} size="xs" variant="default" aria-label={label} onClick={onClick}>
      {children}
    </MayButton>
  ) : (
    <Button size="xs" variant="default" aria-label={label} onClick={onClick}>
      {children}
    </Button>
  );
}

/** A row's Delete (or Revoke, Remove) button: red, named for what it deletes (`label`). */
export function DeleteButton({ label, onClick, children = "Delete", may }: { label: string; onClick(): void; children?: string; may?: string }) {
  if (may)
    return (
      <MayButton may={may} size="xs" variant="light" color="red" aria-label={label} onClick={onClick}>
        {children}
      </MayButton>
    );
  return (
    <Button size="xs" variant="light" color="red" aria-label={label} onClick={onClick}>
      {children}
    </Button>
  );
}
