import { Button, Group, Modal, Stack } from "@mantine/core";
import { NAMED_CLOSE } from "../../components/modal-close";
import type { ReactNode } from "react";
import { ErrorAlert } from "../../components/error-alert";

/** A destructive action asked twice: what it does, then Cancel or the action (red). */
export function ConfirmModal(props: {
  opened: boolean;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  onConfirm: () => void;
  onClose: () => void;
  loading?: boolean;
  error?: unknown;
}) {
  return (
    <Modal {...NAMED_CLOSE} opened={props.opened} onClose={props.onClose} title={props.title} centered>
      <Stack>
        {props.children}
        <ErrorAlert error={props.error} />
        <Group justify="flex-end">
          <Button variant="default" onClick={props.onClose}>
            Cancel
          </Button>
          <Button color="red" onClick={props.onConfirm} loading={props.loading}>
            {props.confirmLabel}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
