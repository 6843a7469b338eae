import { Anchor, Button, Group, Modal, Stack, Table, Text, TextInput, Tooltip } from "@mantine/core";
import { Link } from "@tanstack/react-router";
import { useState } from "react";
import { ConfirmDelete } from "../../components/confirm-delete";
import { ACTIONS, DataTable } from "../../components/data-table";
import { FormActions } from "../../components/form-actions";
import { PageHeader } from "../../components/page-header";
import { formatCost, formatNumber } from "../../lib/format";
import { describeFilter } from "./describe-filter";
import { MonitorModal } from "./monitor-modal";
import { OnlineEvalsSection } from "./online-evals-section";
import { type Monitor, useBackfillMonitor, useDeleteMonitor, useMonitorChoices, useMonitors, useUpdateMonitor } from "./queries";
import { criterionNamer, NameAndStatus, pct, RowControls } from "./status-controls";

/** What the monitor did, left to right as a call goes through it. */
function Counts({ m }: { m: Monitor }) {
  const c = m.counts;
  const items: [string, number, string][] = [
    ["seen", c.seen, "Answered calls of the application stored while it was active"],
    ["sampled", c.sampled, "Calls in its sample that it examined"],
    ["matched", c.matched, "Of those, the ones its filter matched"],
    ...(m.criterionId ? ([["judged", c.judged, "Matched calls its criterion judged"]] as [string, number, string][]) : []),
    ["added", c.added, "Entries added to the dataset"],
    ["duplicates", c.duplicates, "Kept calls the dataset already held"],
    ...(m.criterionId ? ([["rejected", c.rejected, "Judged calls the verdict did not keep"]] as [string, number, string][]) : []),
    ["invalid", c.invalid, "Calls that could not become an entry, or no judge could judge"],
    ["waiting", c.waiting, "Offered and not examined yet"],
  ];
  return (
    <Group gap="sm" wrap="wrap" maw={420}>
      {items.map(([label, n, tip]) => (
        <Tooltip key={label} label={tip}>
          <Stack gap={0} data-count={label} data-value={n}>
            <Text size="sm" fw={600}>
              {formatNumber(n)}
            </Text>
            <Text size="xs" c="dimmed">
              {label}
            </Text>
          </Stack>
        </Tooltip>
      ))}
    </Group>
  );
}

function BackfillModal({ monitor, onClose }: { monitor: Monitor | null; onClose(): void }) {
  const [from, setFrom] = useState(() => new Date(Date.now() - 86_400_000).toISOString().slice(0, 16));
  const [to, setTo] = useState("");
  const backfill = useBackfillMonitor(onClose);
  return (
    <Modal opened={monitor !== null} onClose={onClose} title={`Backfill ${monitor?.name ?? ""}`}>
      <Stack>
        <Text size="sm">
          Offers the monitor the calls made in this range (in your time zone), as if it had been running then. Calls it already examined are not offered again.
        </Text>
        <Group grow>
          <TextInput type="datetime-local" label="From" value={from} onChange={(e) => setFrom(e.currentTarget.value)} />
          <TextInput type="datetime-local" label="To" placeholder="now" value={to} onChange={(e) => setTo(e.currentTarget.value)} />
        </Group>
        <FormActions
          label="Backfill"
          mutation={backfill}
          errorTitle="The backfill failed"
          disabled={!from}
          onCancel={onClose}
          onConfirm={() => monitor && backfill.mutate({ id: monitor.id, from: new Date(from), ...(to ? { to: new Date(to) } : {}) })}
        />
      </Stack>
    </Modal>
  );
}

export function MonitorsPage() {
  const monitors = useMonitors();
  const { datasets, criteria } = useMonitorChoices(true);
  const update = useUpdateMonitor();
  const [creating, setCreating] = useState(false);
  const [filling, setFilling] = useState<Monitor | null>(null);
  const [deleting, setDeleting] = useState<Monitor | null>(null);
  const remove = useDeleteMonitor(() => setDeleting(null));
  const datasetName = (id: string) => datasets.data?.find((d) => d.id === id)?.name ?? id;
  const criterionName = criterionNamer(criteria);
  return (
    <>
      <PageHeader
        mutates="member"
        title="Monitors"
        description="Saved filters that turn matching production calls into dataset entries as they come, optionally judged by a criterion first."
        actions={<Button onClick={() => setCreating(true)}>New monitor</Button>}
      />
      <Stack gap="xs">
        <DataTable
          label="Monitors"
          testId="monitors-table"
          verticalSpacing="sm"
          minWidth={1040}
          columns={["Monitor", "Into", "What it did", "Judging cost", ACTIONS]}
          query={monitors}
          error={update.error}
          empty="No monitors yet. Filter the Logs page down to the calls you want to learn from and choose “Monitor these calls”, or add one here."
          row={(m) => (
            <Table.Tr key={m.id} data-monitor-id={m.id} data-monitor-name={m.name} data-status={m.status}>
              <Table.Td miw={240} maw={360}>
                <Stack gap={2}>
                  <NameAndStatus name={m.name} status={m.status} />
                  <Text size="xs">{describeFilter(m.filter)}</Text>
                  <Text size="xs" c="dimmed">
                    {m.sampleRate < 1 ? `${pct(m.sampleRate)} sample` : "every call"}
                    {m.criterionId ? ` · judged by ${criterionName(m.criterionId)}, keeping ${m.keepOn === "PASS" ? "passes" : "failures"}` : ""}
                  </Text>
                  {m.lastError ? (
                    <Text size="xs" c="red" role="alert">
                      {m.lastError}
                    </Text>
                  ) : null}
                </Stack>
              </Table.Td>
              <Table.Td>
                <Anchor size="sm" renderRoot={(props) => <Link {...props} to="/datasets/$datasetId" params={{ datasetId: m.datasetId }} />}>
                  {datasetName(m.datasetId)}
                </Anchor>
                <Text size="xs" c="dimmed">
                  {pct(m.testFraction)} to TEST
                </Text>
              </Table.Td>
              <Table.Td>
                <Counts m={m} />
              </Table.Td>
              <Table.Td>
                <Text size="sm">{m.criterionId ? formatCost(m.judgeCostUsd) : "–"}</Text>
              </Table.Td>
              <Table.Td>
                <RowControls
                  of={m.name}
                  status={m.status}
                  update={{ isPending: update.isPending, busy: update.variables?.id === m.id }}
                  onToggle={(status) => update.mutate({ id: m.id, status })}
                  onDelete={() => setDeleting(m)}
                >
                  <Button size="xs" variant="default" aria-label={`Backfill ${m.name}`} onClick={() => setFilling(m)}>
                    Backfill
                  </Button>
                </RowControls>
              </Table.Td>
            </Table.Tr>
          )}
        />
        <Text size="xs" c="dimmed">
          A monitor examines each answered call as it is stored: its sample first (decided by the call's id), then its filter, then its criterion. Its judge
          calls are Hone's own (kind monitor), kept apart from the application's logs and usage.
        </Text>
      </Stack>
      <OnlineEvalsSection />
      <MonitorModal opened={creating} onClose={() => setCreating(false)} filter={null} />
      <BackfillModal monitor={filling} onClose={() => setFilling(null)} />
      <ConfirmDelete
        target={deleting}
        title={`Delete the monitor ${deleting?.name ?? ""}?`}
        confirmLabel="Delete monitor"
        onClose={() => setDeleting(null)}
        onConfirm={(t) => remove.mutate({ id: t.id })}
        mutation={remove}
      >
        <Text size="sm">It stops examining calls. The entries it added stay in their dataset.</Text>
      </ConfirmDelete>
    </>
  );
}
