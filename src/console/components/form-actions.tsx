import { Button, Group } from "@mantine/core";
import { type ReactNode, useEffect, useRef } from "react";
import { focusFirstError } from "../lib/focus-error";
import { issuesOf } from "../lib/trpc";
import { ErrorAlert } from "./error-alert";

/** What FormActions needs of a Mantine form to put the server's field errors next to their fields. */
export type FieldErrors = { getValues(): object; setFieldError(path: string, error: ReactNode): void };

/** The issues of `error` that name a field of the form (by its first path segment). */
const fieldIssues = (error: unknown, form: FieldErrors | undefined) => {
  if (!form) return [];
  const values = form.getValues() as Record<string, unknown>;
  return issuesOf(error).filter((i) => i.path && i.path.split(".")[0]! in values);
};

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
  form,
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
  /** The form: the server's errors that name one of its fields are shown next to that field (and it is focused), once. */
  form?: FieldErrors;
}) {
  const foot = useRef<HTMLDivElement>(null);
  // The form as last rendered, read when an error arrives (its identity may change every render).
  const formRef = useRef(form);
  formRef.current = form;
  const onFields = fieldIssues(error, form);
  useEffect(() => {
    const f = formRef.current;
    const issues = fieldIssues(error, f);
    if (!f || !issues.length) return;
    for (const i of issues) f.setFieldError(i.path, i.message);
    focusFirstError(foot.current?.closest("form") ?? null);
  }, [error]);
  // Said next to the fields, so not again above the buttons (unless something is left to say).
  const rest = onFields.length && onFields.length === issuesOf(error).length ? null : error;
  return (
    <>
      <ErrorAlert error={rest} title={errorTitle} />
      <Group justify={justify} ref={foot}>
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
