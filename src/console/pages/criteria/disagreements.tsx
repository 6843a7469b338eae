import { Stack, Table, Text, Title } from "@mantine/core";
import { ACTIONS, DataTable } from "../../components/data-table";
import type { AlignmentRow } from "./queries";
import { ConversationPreview, LabelBadge, OutputPreview, useRowDialog } from "./row-view";

export const verdictOf = (row: AlignmentRow, version: number) => row.verdicts.find((v) => v.version === version);

/** Rows where the judge and the person differ, and rows the judge could not decide: the conversation, the output, both verdicts, why. */
export function Disagreements({ rows, version }: { rows: AlignmentRow[]; version: number }) {
  const { openButton, dialog } = useRowDialog();
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
        <DataTable
          label="Disagreements"
          striped
          verticalSpacing="xs"
          minWidth={900}
          columns={["Conversation", "Output", "You", "Judge", "Judge's explanation", ACTIONS]}
          rows={[...differ, ...errors]}
          row={(r, n) => {
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
                <Table.Td>{openButton(r, `Open disagreement ${n + 1}`)}</Table.Td>
              </Table.Tr>
            );
          }}
        />
      )}
      {dialog}
    </Stack>
  );
}
