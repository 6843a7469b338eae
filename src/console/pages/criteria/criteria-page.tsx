import { Badge, Button, Group, Table, Text } from "@mantine/core";
import { Link } from "@tanstack/react-router";
import { useState } from "react";
import { DataTable, EmptyCard } from "../../components/data-table";
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
      <DataTable
        label="Criteria"
        striped
        highlightOnHover
        minWidth={640}
        columns={["Name", "Latest version", "Judge model", "Last alignment F1", "Created"]}
        query={list}
        emptyState={
          <EmptyCard title="No criteria yet">
            A criterion is a judge model and a prompt. Create one, label 30 or more examples, and run it against your labels to see its precision and recall.
          </EmptyCard>
        }
        row={(c) => {
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
        }}
      />
      {creating ? <CreateCriterion onClose={() => setCreating(false)} /> : null}
    </>
  );
}
