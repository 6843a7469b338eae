import { Button, Group } from "@mantine/core";
import type { ReactNode } from "react";
import { ErrorAlert } from "./error-alert";

/** A call's progress as a form's buttons show it: a TanStack mutation fits. */
export type Pending = { isPending: boolean; error: unknown; reset?(): void };

/**
 * The foot of a form or dialog: what went wrong, then Cancel (when it can be cancelled) and the
 * action. The action submits the form, or runs `onConfirm` when given (red when `danger`).
 */
export function FormActions({
  label,
  mutation,
  error = mutation?.error,
  errorTitle,
  loading = mutation?.isPending,
  disabled,
  onCancel,
  cancelLabel = "Cancel",
  onConfirm,
  danger,
  justify = "flex-end",
}: {
  label: ReactNode;
  mutation?: Pending;
  error?: unknown;
  errorTitle?: string;
  loading?: boolean;
  disabled?: boolean;
  onCancel?: () => void;
  cancelLabel?: string;
  onConfirm?: () => void;
  danger?: boolean;
  justify?: "flex-end" | "flex-start";
}) {
  return (
    <>
      <ErrorAlert error={error} title={errorTitle} />
      <Group justify={justify}>
        {onCancel ? (
          <Button variant="default" onClick={onCancel}>
            {cancelLabel}
          </Button>
        ) : null}
        <Button type={onConfirm ? "button" : "submit"} color={danger ? "red" : undefined} onClick={onConfirm} loading={loading} disabled={disabled}>
          {label}
        </Button>
      </Group>
    </>
  );
}
