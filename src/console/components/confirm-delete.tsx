import { Modal, Stack } from "@mantine/core";
import type { ReactNode } from "react";
import { FormActions, type Pending } from "./form-actions";
import { NAMED_CLOSE } from "./modal-close";

/**
 * A destructive action asked twice: what it does, then Cancel or the action (red). It stays open
 * while the action runs and shows why it failed; whoever started it closes it once done.
 */
export function ConfirmDelete<T = never>({
  target,
  opened = target === undefined || target !== null,
  title,
  children,
  confirmLabel,
  cancelLabel,
  onConfirm,
  onClose,
  mutation,
  loading,
  error,
  errorTitle,
  disabled,
}: {
  /** What the dialog asks about (a list's row): open while it is not null. */
  target?: T | null;
  opened?: boolean;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  cancelLabel?: string;
  /** Runs the action (on the target, when there is one). */
  onConfirm: (target: T) => void;
  onClose: () => void;
  /** The call the action makes: its progress and error. */
  mutation?: Pending;
  loading?: boolean;
  error?: unknown;
  errorTitle?: string;
  disabled?: boolean;
}) {
  // Closed without the action done: its error is not shown the next time.
  const close = () => {
    mutation?.reset?.();
    onClose();
  };
  return (
    <Modal {...NAMED_CLOSE} opened={opened} onClose={close} title={title} centered>
      <Stack>
        {children}
        <FormActions
          label={confirmLabel}
          danger
          onConfirm={() => onConfirm(target as T)}
          onCancel={close}
          cancelLabel={cancelLabel}
          mutation={mutation}
          loading={loading ?? mutation?.isPending}
          error={error ?? mutation?.error}
          errorTitle={errorTitle}
          disabled={disabled}
        />
      </Stack>
    </Modal>
  );
}
