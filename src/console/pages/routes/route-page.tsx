import { Anchor, Badge, Button, Code, Group, Paper, SegmentedControl, Slider, Stack, Table, Text, Title } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { Link, useNavigate, useParams } from "@tanstack/react-router";
import { useState } from "react";
import { ConfirmDelete } from "../../components/confirm-delete";
import { DataTable, right } from "../../components/data-table";
import { ErrorAlert } from "../../components/error-alert";
import { PageHeader } from "../../components/page-header";
import { formatKnownCost, formatMs, formatNumber, formatTime } from "../../lib/format";
import { type Route, STATS_REFRESH_MS, useDeleteRoute, useRollbackRoute, useRoute, useRouteSeries, useRouteStats, useUpdateRoute } from "./queries";
import { RouteCharts } from "./route-charts";
import { RouteFormModal } from "./route-form";
import { planText } from "./routes-page";

const WINDOWS = { "1": "Last hour", "24": "Last 24 hours", "168": "Last 7 days" } as const;

/** The weights of every group, as the split editor changes them. */
type Weights = number[][];
const weightsOf = (r: Route): Weights => r.groups.map((g) => g.targets.map((t) => t.weight));

/**
 * Moves one target's share; in a group of two the other takes the rest, so the split always sums
 * to 100. In larger groups each slider is its own and the sum is shown.
 */
function moved(w: Weights, g: number, k: number, value: number): Weights {
  return w.map((group, i) => {
    if (i !== g) return group;
    if (group.length === 2) return k === 0 ? [value, 100 - value] : [100 - value, value];
    return group.map((x, j) => (j === k ? value : x));
  });
}

function SplitEditor({ route }: { route: Route }) {
  const [weights, setWeights] = useState<Weights>(() => weightsOf(route));
  const [base, setBase] = useState(route.revision);
  // A change made elsewhere (a rollback, another editor) resets the draft.
  if (base !== route.revision) {
    setBase(route.revision);
    setWeights(weightsOf(route));
  }
  const update = useUpdateRoute((r) => notifications.show({ message: `Split of hone:${r.slug} saved (revision ${r.revision})` }));
  const changed = JSON.stringify(weights) !== JSON.stringify(weightsOf(route));
  const sums = weights.map((g) => g.reduce((s, x) => s + x, 0));
  const save = () =>
    update.mutate({
      slug: route.slug,
      attempts: route.attempts,
      stickyTag: route.stickyTag,
      judge: route.judge,
      groups: route.groups.map((g, i) => ({ balance: g.balance, targets: g.targets.map((t, k) => ({ ...t, weight: weights[i]![k]! })) })),
    });
  return (
    <Paper withBorder p="md">
      <Stack gap="sm">
        <Group justify="space-between">
          <Title order={4}>Split</Title>
          <Group gap="xs">
            <Button variant="default" size="xs" disabled={!changed} onClick={() => setWeights(weightsOf(route))}>
              Reset
            </Button>
            <Button size="xs" disabled={!changed || sums.some((s) => s !== 100)} loading={update.isPending} onClick={save}>
              Save split
            </Button>
          </Group>
        </Group>
        {route.groups.map((g, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: a stored route's groups are its positions; a change of the route resets the draft
          <Stack key={i} gap={6} data-testid={`split-group-${i}`}>
            <Text size="sm" fw={500}>
              {i === 0 ? "Group 1" : `Group ${i + 1} (fallback)`}
              {g.balance === "least-busy" ? " · least busy first" : ""}
              {sums[i] !== 100 ? (
                <Text span c="red" size="xs">
                  {" "}
                  sums to {sums[i]}% (must be 100)
                </Text>
              ) : null}
            </Text>
            {g.targets.map((t, k) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: as above, positions of a stored route
              <Group key={k} wrap="nowrap" gap="sm">
                <Text size="sm" ff="monospace" w={260} style={{ overflowWrap: "anywhere" }}>
                  {t.model}
                  {t.version ? (
                    <Badge ml={6} size="xs" variant="light" tt="none">
                      {t.version}
                    </Badge>
                  ) : null}
                </Text>
                <Slider
                  style={{ flex: 1 }}
                  min={0}
                  max={100}
                  step={1}
                  value={weights[i]![k]!}
                  disabled={g.targets.length === 1}
                  onChange={(v) => setWeights(moved(weights, i, k, v))}
                  label={(v) => `${v}%`}
                  thumbLabel={`Share of ${t.model}${t.version ? ` (${t.version})` : ""}`}
                  marks={[{ value: 0 }, { value: 10 }, { value: 50 }, { value: 100 }]}
                />
                <Text size="sm" w={44} ta="right" style={{ fontVariantNumeric: "tabular-nums" }} data-testid={`weight-${i}-${k}`}>
                  {weights[i]![k]}%
                </Text>
              </Group>
            ))}
          </Stack>
        ))}
        <ErrorAlert error={update.error} title="The split was not saved" />
      </Stack>
    </Paper>
  );
}

function StatsTable({ route }: { route: Route }) {
  const [hours, setHours] = useState<keyof typeof WINDOWS>("24");
  const stats = useRouteStats(route.slug, Number(hours));
  const series = useRouteSeries(route.slug, Number(hours));
  // The share each version has now (its targets' weights in the first group that has it).
  const shareOf = (version: string | null) => {
    for (const g of route.groups) {
      const ts = g.targets.filter((t) => (t.version ?? null) === version);
      if (ts.length) return `${ts.reduce((s, t) => s + t.weight, 0)}%`;
    }
    return "–";
  };
  return (
    <Paper withBorder p="md">
      <Stack gap="sm">
        <Group justify="space-between">
          <Stack gap={0}>
            <Title order={4}>Versions side by side</Title>
            <Text size="xs" c="dimmed">
              From the logs of the route's calls; read again every {STATS_REFRESH_MS / 1000} s.
            </Text>
          </Stack>
          <SegmentedControl
            size="xs"
            value={hours}
            onChange={(v) => setHours(v as keyof typeof WINDOWS)}
            data={Object.entries(WINDOWS).map(([value, label]) => ({ value, label }))}
          />
        </Group>
        <DataTable
          label="Versions"
          testId="route-stats"
          striped
          columns={["Version", ...right("Share now", "Requests", "Error rate", "p50", "p95", "Cost", ...(route.judge ? ["Pass rate (judged)"] : [])), null]}
          rows={stats.data}
          error={stats.error}
          errorTitle="The figures could not be read"
          empty={<>No logged calls to hone:{route.slug} in this window yet.</>}
          row={(s) => (
            <Table.Tr key={s.version ?? "(none)"} data-version={s.version ?? ""}>
              <Table.Td>{s.version ? <Code>{s.version}</Code> : <Text size="sm">no version (or no answer)</Text>}</Table.Td>
              <Table.Td ta="right">{shareOf(s.version)}</Table.Td>
              <Table.Td ta="right">{formatNumber(s.requests)}</Table.Td>
              <Table.Td ta="right" c={s.errorRate > 0.05 ? "red" : undefined}>
                {(s.errorRate * 100).toFixed(1)}%
              </Table.Td>
              <Table.Td ta="right">{formatMs(s.latencyP50Ms)}</Table.Td>
              <Table.Td ta="right">{formatMs(s.latencyP95Ms)}</Table.Td>
              <Table.Td ta="right" data-col="cost">
                {s.requests ? formatKnownCost(s.costUsd, s.unpricedCalls) : "–"}
              </Table.Td>
              {route.judge ? (
                <Table.Td ta="right" data-col="pass-rate">
                  {s.passRate === null ? "–" : `${(s.passRate * 100).toFixed(0)}%`} ({formatNumber(s.judged)})
                </Table.Td>
              ) : null}
              <Table.Td>
                <Anchor
                  size="sm"
                  renderRoot={(props) => (
                    <Link {...props} to="/logs" search={{ route: route.slug, ...(s.version ? { routeVersion: s.version } : {}), range: "24h" }} />
                  )}
                >
                  Logs
                </Anchor>
              </Table.Td>
            </Table.Tr>
          )}
        />
        <ErrorAlert error={series.error} title="The figures over time could not be read" />
        {series.data?.points.length ? <RouteCharts series={series.data} judged={!!route.judge} /> : null}
      </Stack>
    </Paper>
  );
}

export function RoutePage() {
  const { slug } = useParams({ from: "/routes/$slug" });
  const navigate = useNavigate();
  const route = useRoute(slug);
  const [editing, setEditing] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const rollback = useRollbackRoute((r) => notifications.show({ message: `Rolled back: hone:${r.slug} is at revision ${r.revision}: ${planText(r)}` }));
  const remove = useDeleteRoute(() => void navigate({ to: "/routes" }));
  const r = route.data;
  return (
    <>
      <PageHeader
        mutates="admin"
        title={`hone:${slug}`}
        description={r ? `Revision ${r.revision}, changed ${formatTime(r.updatedAt)}${r.stickyTag ? ` · sticky by tag ${r.stickyTag}` : ""}` : undefined}
        actions={
          r ? (
            <>
              <Button
                variant="default"
                disabled={!r.previous}
                title={r.previous ? `Back to: ${planText(r.previous)}` : "Nothing to roll back to: the route has not been changed"}
                loading={rollback.isPending}
                onClick={() => rollback.mutate({ slug })}
              >
                Roll back
              </Button>
              <Button variant="default" onClick={() => setEditing(true)}>
                Edit
              </Button>
              <Button variant="light" color="red" onClick={() => setDeleting(true)}>
                Delete
              </Button>
            </>
          ) : null
        }
      />
      <ErrorAlert error={route.error ?? rollback.error} />
      {r ? (
        <Stack>
          <SplitEditor route={r} />
          <StatsTable route={r} />
          {r.previous ? (
            <Text size="sm" c="dimmed" data-testid="route-previous">
              Roll back restores: <Code>{planText(r.previous)}</Code>
            </Text>
          ) : null}
        </Stack>
      ) : null}
      {editing && r ? <RouteFormModal editing={r} onClose={() => setEditing(false)} onSaved={() => setEditing(false)} /> : null}
      <ConfirmDelete
        opened={deleting}
        title={`Delete route ${slug}?`}
        confirmLabel="Delete route"
        onClose={() => setDeleting(false)}
        onConfirm={() => remove.mutate({ slug })}
        mutation={remove}
      >
        <Text size="sm">
          Calls to <Code>hone:{slug}</Code> answer 404 from now on (within a second on every Hone process). Logs of past calls stay.
        </Text>
      </ConfirmDelete>
    </>
  );
}
