import { Badge, Table, Text } from "@mantine/core";
import type { LogDetailData } from "./queries";

/** Each choice's result per criterion: the verdict as a word (and a colour), the score, the reason. */
export function CriteriaResults({ results }: { results: NonNullable<LogDetailData["criteriaResults"]> }) {
  return (
    <Table fz="sm" verticalSpacing={4} aria-label="Criteria results">
      <Table.Thead>
        <Table.Tr>
          <Table.Th>Choice</Table.Th>
          <Table.Th>Criterion</Table.Th>
          <Table.Th>Result</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {results.flatMap((choice) =>
          Object.entries(choice.results).map(([criterion, r]) => {
            const o = (typeof r === "object" && r !== null ? r : {}) as Record<string, unknown>;
            const status = typeof o.status === "string" ? o.status : typeof r === "string" ? r : null;
            return (
              <Table.Tr key={`${choice.index}-${criterion}`}>
                <Table.Td>{choice.index}</Table.Td>
                <Table.Td ff="monospace">{criterion}</Table.Td>
                <Table.Td>
                  {status ? (
                    <Badge color={status === "PASS" ? "teal" : status === "FAIL" ? "red" : "gray"} variant="outline" mr="xs">
                      {status}
                    </Badge>
                  ) : null}
                  {typeof o.score === "number" ? `score ${o.score} ` : ""}
                  {typeof o.explanation === "string" ? (
                    <Text span size="xs" c="dimmed">
                      {o.explanation}
                    </Text>
                  ) : status ? null : (
                    <Text span size="xs" ff="monospace">
                      {JSON.stringify(r)}
                    </Text>
                  )}
                </Table.Td>
              </Table.Tr>
            );
          }),
        )}
      </Table.Tbody>
    </Table>
  );
}
