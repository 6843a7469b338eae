import { Badge, Button, Group, Paper, Table, Text } from "@mantine/core";
import { Link } from "@tanstack/react-router";
import { useState } from "react";
import { ErrorAlert } from "../../components/error-alert";
import { PageHeader } from "../../components/page-header";
import { formatRelative, plural } from "../../lib/format";
import { CreateCriterion } from "./create-criterion";
import { formatRatio } from "./format";
import { useCriteriaList } from "./queries";

export function CriteriaPage() {
  const list = useCriteriaList();
  const [creating, setCreating] = useState(false);
  return (
    <>
      <PageHeader
        mutates="member"
        title="Criteria"
        description="LLM judges that give PASS or FAIL. Align each with human labels before you trust it."
        actions={<Button onClick={() => setCreating(true)}>New criterion</Button>}
      />
      <ErrorAlert error={list.error} />
      {list.data && list.data.length === 0 ? (
        <Paper withBorder p="xl" maw={640}>
          <Text fw={600}>No criteria yet</Text>
          <Text size="sm" c="dimmed">
            A criterion is a judge model and a prompt. Create one, label 30 or more examples, and run it against your labels to see its precision and recall.
          </Text>
        </Paper>
      ) : null}
      {list.data?.length ? (
        <Table.ScrollContainer minWidth={640}>
          <Table striped highlightOnHover aria-label="Criteria">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Name</Table.Th>
                <Table.Th>Latest version</Table.Th>
                <Table.Th>Judge model</Table.Th>
                <Table.Th>Last alignment F1</Table.Th>
                <Table.Th>Created</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {list.data.map((c) => {
                const latest = c.versions.at(-1);
                return (
                  <Table.Tr key={c.id} data-testid="criterion-row">
                    <Table.Td>
                      <Link to="/criteria/$criterionId" params={{ criterionId: c.id }}>
                        {c.name}
                      </Link>
                    </Table.Td>
                    <Table.Td>
                      v{c.latestVersion}{" "}
                      <Text span size="xs" c="dimmed">
                        ({plural(c.versions.length, "version")})
                      </Text>
                    </Table.Td>
                    <Table.Td>
                      <Text size="sm" ff="monospace">
                        {latest?.judgeModel}
                      </Text>
                    </Table.Td>
                    <Table.Td data-testid="criterion-f1">
                      {c.lastAlignment ? (
                        <Group gap={6}>
                          <Text size="sm">{formatRatio(c.lastAlignment.f1)}</Text>
                          <Badge variant="light" color="gray" tt="none">
                            v{c.lastAlignment.version} · {plural(c.lastAlignment.rows, "row")}
                          </Badge>
                        </Group>
                      ) : (
                        <Text size="sm" c="dimmed">
                          not aligned yet
                        </Text>
                      )}
                    </Table.Td>
                    <Table.Td>{formatRelative(c.createdAt)}</Table.Td>
                  </Table.Tr>
                );
              })}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      ) : null}
      {creating ? <CreateCriterion onClose={() => setCreating(false)} /> : null}
    </>
  );
}
