import { Button, Modal, Stack, Table, Text, Title, VisuallyHidden } from "@mantine/core";
import { NAMED_CLOSE } from "../../components/modal-close";
import { useState } from "react";
import type { AlignmentRow } from "./queries";
import { ConversationPreview, LabelBadge, OutputPreview, RowView } from "./row-view";

export const verdictOf = (row: AlignmentRow, version: number) => row.verdicts.find((v) => v.version === version);

/** Rows where the judge and the person differ, and rows the judge could not decide: the conversation, the output, both verdicts, why. */
export function Disagreements({ rows, version }: { rows: AlignmentRow[]; version: number }) {
  const [open, setOpen] = useState<AlignmentRow | null>(null);
  const differ = rows.filter((r) => {
    const v = verdictOf(r, version);
    return r.judgement && v?.verdict && v.verdict !== r.judgement;
  });
  const errors = rows.filter((r) => verdictOf(r, version)?.error);
  return (
    <Stack gap="xs">
      <Title order={3} size="h4">
        Disagreements ({differ.length}){errors.length ? ` and judge errors (${errors.length})` : ""}
      </Title>
      {differ.length === 0 && errors.length === 0 ? (
        <Text size="sm" c="dimmed">
          The judge agrees with every label you gave.
        </Text>
      ) : (
        <Table.ScrollContainer minWidth={900}>
          <Table aria-label="Disagreements" striped verticalSpacing="xs">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Conversation</Table.Th>
                <Table.Th>Output</Table.Th>
                <Table.Th>You</Table.Th>
                <Table.Th>Judge</Table.Th>
                <Table.Th>Judge's explanation</Table.Th>
                <Table.Th>
                  <VisuallyHidden>Actions</VisuallyHidden>
                </Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {[...differ, ...errors].map((r, n) => {
                const v = verdictOf(r, version)!;
                return (
                  <Table.Tr key={r.id} data-testid="disagreement" data-row-id={r.id} style={{ verticalAlign: "top" }}>
                    <Table.Td maw={320}>
                      <ConversationPreview messages={r.messages} />
                    </Table.Td>
                    <Table.Td maw={280}>
                      <OutputPreview output={r.output} />
                    </Table.Td>
                    <Table.Td>
                      <LabelBadge label={r.judgement} testId="disagreement-you" />
                    </Table.Td>
                    <Table.Td>
                      <LabelBadge label={v.verdict ?? "error"} testId="disagreement-judge" />
                    </Table.Td>
                    <Table.Td maw={340}>
                      <Text size="sm">{v.explanation ?? v.error}</Text>
                    </Table.Td>
                    <Table.Td>
                      <Button size="compact-xs" variant="default" onClick={() => setOpen(r)} aria-label={`Open disagreement ${n + 1}`}>
                        Open
                      </Button>
                    </Table.Td>
                  </Table.Tr>
                );
              })}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      {open ? (
        <Modal {...NAMED_CLOSE} opened onClose={() => setOpen(null)} title="Alignment row" size="xl">
          <RowView row={open} />
        </Modal>
      ) : null}
    </Stack>
  );
}
