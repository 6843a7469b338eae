import { Badge, Button, Modal, Paper, Stack, Text } from "@mantine/core";
import { useState } from "react";
import { NAMED_CLOSE } from "../../components/modal-close";
import { messageText } from "../../lib/messages";
import { Message, toolNamesOf } from "../logs/conversation";
import type { AlignmentRow } from "./queries";

export type Label = "PASS" | "FAIL" | null;

/** The row being labelled: its conversation, and the output to judge set apart. */
export function RowView({ row }: { row: AlignmentRow }) {
  const messages = row.messages as unknown[];
  const toolNames = toolNamesOf([...messages, row.output]);
  return (
    <Stack gap={6}>
      {messages.map((m, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: messages have no ids; their order is their identity
        <Message key={i} message={m} scope={`${row.id}-${i}`} toolNames={toolNames} />
      ))}
      <Paper p={4} radius="md" style={{ outline: "3px solid var(--mantine-color-yellow-filled)" }} data-testid="judged-output">
        <Text size="xs" fw={700} px={6} pb={2}>
          OUTPUT TO JUDGE
        </Text>
        <Message message={row.output} scope={`${row.id}-out`} toolNames={toolNames} />
      </Paper>
    </Stack>
  );
}

const SHOWN = 3;

/**
 * A row's conversation in a list: each message's role and first lines, the last few when it is
 * long (the whole row opens with RowView).
 */
export function ConversationPreview({ messages }: { messages: unknown }) {
  const list = Array.isArray(messages) ? messages : [];
  const hidden = Math.max(0, list.length - SHOWN);
  return (
    <Stack gap={2} data-testid="row-input">
      {hidden ? (
        <Text size="xs" c="dimmed">
          {hidden === 1 ? "1 earlier message" : `${hidden} earlier messages`}
        </Text>
      ) : null}
      {list.slice(hidden).map((m, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: messages have no ids; their order is their identity
        <Text key={i} size="sm" lineClamp={2}>
          <Text span fw={700} size="sm">
            {typeof (m as { role?: unknown })?.role === "string" ? (m as { role: string }).role : "message"}:
          </Text>{" "}
          {messageText(m)}
        </Text>
      ))}
      {list.length === 0 ? (
        <Text size="sm" c="dimmed">
          no conversation
        </Text>
      ) : null}
    </Stack>
  );
}

/** The output judged, a few lines of it. */
export function OutputPreview({ output }: { output: unknown }) {
  return (
    <Text size="sm" lineClamp={3} data-testid="row-output">
      {messageText(output)}
    </Text>
  );
}

/** A label or verdict as a badge whose text says it (never colour alone). */
export function LabelBadge({ label, testId = "row-label" }: { label: Label | "error"; testId?: string }) {
  if (!label)
    return (
      <Badge color="gray" variant="outline" data-testid={testId}>
        unlabelled
      </Badge>
    );
  return (
    <Badge color={label === "PASS" ? "teal.9" : label === "FAIL" ? "red.9" : "gray.7"} data-testid={testId}>
      {label}
    </Badge>
  );
}

/** A list whose rows open one at a time in a dialog: each row's Open button, and the dialog. */
export function useRowDialog() {
  const [open, setOpen] = useState<AlignmentRow | null>(null);
  const openButton = (row: AlignmentRow, label: string) => (
    <Button size="compact-xs" variant="default" onClick={() => setOpen(row)} aria-label={label}>
      Open
    </Button>
  );
  const dialog = open ? (
    <Modal {...NAMED_CLOSE} opened onClose={() => setOpen(null)} title="Alignment row" size="xl">
      <RowView row={open} />
    </Modal>
  ) : null;
  return { openButton, dialog };
}
