import { Anchor, Badge, Button, Code, Group, Table, Text } from "@mantine/core";
import { When } from "../../components/when";
import { Link, useNavigate } from "@tanstack/react-router";
import { useState } from "react";
import { DataTable, EmptyCard } from "../../components/data-table";
import { PageHeader } from "../../components/page-header";

import { type Route, useRoutes } from "./queries";
import { RouteFormModal } from "./route-form";

/** "hone:a 90% · hone:b 10%, then anthropic:…": a route's plan on one line. */
export function planText(r: Pick<Route, "groups">): string {
  return r.groups.map((g) => g.targets.map((t) => (g.targets.length > 1 ? `${t.model} ${t.weight}%` : t.model)).join(" · ")).join(", then ");
}

export function RoutesPage() {
  const routes = useRoutes();
  const navigate = useNavigate();
  const [creating, setCreating] = useState(false);
  return (
    <>
      <PageHeader
        mutates="admin"
        title="Routes"
        description="Named plans clients call as hone:<slug>: weighted targets, fallback groups, retries, and rollouts of new versions."
        actions={<Button onClick={() => setCreating(true)}>New route</Button>}
      />
      <DataTable
        label="Routes"
        striped
        highlightOnHover
        columns={["Route", "Plan", "Revision", { label: "Updated", visibleFrom: "md" }]}
        query={routes}
        emptyState={
          <EmptyCard title="No routes yet" maw={680}>
            A route sends a share of the calls to each of its targets (a new fine-tune at 10%, say), falls back to other models when they fail, and shows each
            version's error rate, latency and cost side by side. Point your app at <Code>hone:&lt;slug&gt;</Code> and change the split here without a deploy.
          </EmptyCard>
        }
        row={(r) => (
          <Table.Tr key={r.id} data-testid={`route-row-${r.slug}`}>
            <Table.Td>
              <Anchor ff="monospace" renderRoot={(props) => <Link {...props} to="/routes/$slug" params={{ slug: r.slug }} />}>
                hone:{r.slug}
              </Anchor>
            </Table.Td>
            <Table.Td>
              <Text size="sm" ff="monospace" style={{ overflowWrap: "anywhere" }}>
                {planText(r)}
              </Text>
            </Table.Td>
            <Table.Td>
              <Group gap={4}>
                <Text size="sm">{r.revision}</Text>
                {r.stickyTag ? (
                  <Badge size="xs" variant="light" tt="none">
                    sticky by {r.stickyTag}
                  </Badge>
                ) : null}
              </Group>
            </Table.Td>
            <Table.Td visibleFrom="md">
              <Text size="sm">
                <When value={r.updatedAt} />
              </Text>
            </Table.Td>
          </Table.Tr>
        )}
      />
      {creating ? (
        <RouteFormModal editing={null} onClose={() => setCreating(false)} onSaved={(r) => void navigate({ to: "/routes/$slug", params: { slug: r.slug } })} />
      ) : null}
    </>
  );
}
