import { Badge, Button, Group, SegmentedControl, Table, Text } from "@mantine/core";
import { ACTIONS, DataTable } from "../../components/data-table";
import { messageText } from "../../lib/messages";
import { type AlignmentRow, useDeleteAlignmentRows, useLabelRow } from "./queries";
import { useRowDialog } from "./row-view";

/** Every row with its label (changeable) and the latest verdict of each version that judged it. */
export function RowsTable({ criterionId, rows }: { criterionId: string; rows: AlignmentRow[] }) {
  const label = useLabelRow(criterionId);
  const remove = useDeleteAlignmentRows(criterionId);
  const { openButton, dialog } = useRowDialog();
  return (
    <>
      <DataTable
        label="Alignment rows"
        striped
        minWidth={900}
        columns={["#", "Last message", "Output", "Your label", "Judge verdicts", ACTIONS]}
        rows={rows}
        row={(r, n) => (
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
                {openButton(r, `Open row ${n + 1}`)}
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
        )}
      />
      {dialog}
    </>
  );
}
