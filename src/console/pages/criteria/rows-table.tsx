import { Badge, Button, Group, Modal, SegmentedControl, Table, Text, VisuallyHidden } from "@mantine/core";
import { NAMED_CLOSE } from "../../components/modal-close";
import { useState } from "react";
import { messageText } from "../../lib/messages";
import { type AlignmentRow, useDeleteAlignmentRows, useLabelRow } from "./queries";
import { RowView } from "./row-view";

/** Every row with its label (changeable) and the latest verdict of each version that judged it. */
export function RowsTable({ criterionId, rows }: { criterionId: string; rows: AlignmentRow[] }) {
  const label = useLabelRow(criterionId);
  const remove = useDeleteAlignmentRows(criterionId);
  const [open, setOpen] = useState<AlignmentRow | null>(null);
  return (
    <>
      <Table.ScrollContainer minWidth={900}>
        <Table striped aria-label="Alignment rows">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>#</Table.Th>
              <Table.Th>Last message</Table.Th>
              <Table.Th>Output</Table.Th>
              <Table.Th>Your label</Table.Th>
              <Table.Th>Judge verdicts</Table.Th>
              <Table.Th>
                <VisuallyHidden>Actions</VisuallyHidden>
              </Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.map((r, n) => (
              <Table.Tr key={r.id} data-testid="alignment-row" data-row-id={r.id}>
                <Table.Td>{n + 1}</Table.Td>
                <Table.Td maw={260}>
                  <Text size="sm" lineClamp={2}>
                    {messageText((r.messages as unknown[]).at(-1))}
                  </Text>
                </Table.Td>
                <Table.Td maw={320}>
                  <Text size="sm" lineClamp={2}>
                    {messageText(r.output)}
                  </Text>
                </Table.Td>
                <Table.Td>
                  <SegmentedControl
                    size="xs"
                    aria-label={`Label of row ${n + 1}`}
                    data={[
                      { value: "PASS", label: "PASS" },
                      { value: "FAIL", label: "FAIL" },
                      { value: "none", label: "—" },
                    ]}
                    value={r.judgement ?? "none"}
                    onChange={(v) => label.mutate({ rowId: r.id, judgement: v === "none" ? null : (v as "PASS" | "FAIL") })}
                  />
                </Table.Td>
                <Table.Td>
                  <Group gap={4}>
                    {r.verdicts.map((v) => (
                      <Badge
                        key={v.version}
                        variant="light"
                        color={v.verdict === "PASS" ? "teal" : v.verdict === "FAIL" ? "red" : "gray"}
                        tt="none"
                        title={v.explanation ?? v.error ?? ""}
                      >
                        v{v.version}: {v.verdict ?? "error"}
                      </Badge>
                    ))}
                  </Group>
                </Table.Td>
                <Table.Td>
                  <Group gap={4} wrap="nowrap">
                    <Button size="compact-xs" variant="default" onClick={() => setOpen(r)} aria-label={`Open row ${n + 1}`}>
                      Open
                    </Button>
                    <Button
                      size="compact-xs"
                      variant="subtle"
                      color="red"
                      onClick={() => remove.mutate({ criterionId, rowIds: [r.id] })}
                      aria-label={`Delete row ${n + 1}`}
                    >
                      Delete
                    </Button>
                  </Group>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {open ? (
        <Modal {...NAMED_CLOSE} opened onClose={() => setOpen(null)} title="Alignment row" size="xl">
          <RowView row={open} />
        </Modal>
      ) : null}
    </>
  );
}
