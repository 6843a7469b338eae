import { Anchor, Badge, Code, Group, SegmentedControl, Table, Text } from "@mantine/core";
import { Link, useNavigate, useSearch } from "@tanstack/react-router";
import { DataTable, EmptyCard } from "../../components/data-table";
import { PageHeader } from "../../components/page-header";
import { When } from "../../components/when";
import { formatCost, formatMs } from "../../lib/format";
import { useSessions, useTraces } from "./queries";

// Traces and sessions: an application's runs (an agent's steps and model calls) as traces, and the
// conversations they belong to as sessions, over the last 7 days.

function TracesTable({ session }: { session: string | undefined }) {
  const traces = useTraces(session);
  return (
    <DataTable
      label="Traces"
      testId="traces"
      striped
      highlightOnHover
      columns={["Started", "Trace", "Service", "Session", "Spans", "Calls", "Errors", "Duration", "Cost"]}
      query={{ data: traces.data?.items, error: traces.error }}
      emptyState={
        <EmptyCard title="No traces in the last 7 days" maw={720}>
          Send your application's OpenTelemetry traces to <Code>/api/v1/otel/v1/traces</Code> (set <Code>OTEL_EXPORTER_OTLP_ENDPOINT</Code> to this server's{" "}
          <Code>/api/v1/otel</Code> and <Code>OTEL_EXPORTER_OTLP_HEADERS=x-hone-key=&lt;key&gt;</Code>), or send <Code>traceparent</Code> with gateway calls:
          every model call becomes a log, grouped by run.
        </EmptyCard>
      }
      row={(t) => (
        <Table.Tr key={t.id} data-trace-id={t.id}>
          <Table.Td>
            <When value={t.startedAt} />
          </Table.Td>
          <Table.Td>
            <Anchor size="sm" renderRoot={(props) => <Link {...props} to="/traces/$traceId" params={{ traceId: t.id }} />}>
              {t.name ?? t.id.slice(0, 12)}
            </Anchor>
          </Table.Td>
          <Table.Td>{t.service ?? ""}</Table.Td>
          <Table.Td>
            {t.sessionId ? (
              <Anchor size="sm" ff="monospace" renderRoot={(props) => <Link {...props} to="/traces" search={{ session: t.sessionId ?? undefined }} />}>
                {t.sessionId}
              </Anchor>
            ) : null}
          </Table.Td>
          <Table.Td>{t.spans}</Table.Td>
          <Table.Td>{t.logs}</Table.Td>
          <Table.Td>
            {t.errors ? (
              <Badge color="red" variant="light">
                {t.errors}
              </Badge>
            ) : (
              0
            )}
          </Table.Td>
          <Table.Td>{formatMs(t.durationMs)}</Table.Td>
          <Table.Td>{formatCost(t.costUsd)}</Table.Td>
        </Table.Tr>
      )}
    />
  );
}

function SessionsTable() {
  const sessions = useSessions();
  return (
    <DataTable
      label="Sessions"
      testId="sessions"
      striped
      highlightOnHover
      columns={["Session", "Traces", "Calls", "Errors", "Cost", "Started", "Last active"]}
      query={{ data: sessions.data?.items, error: sessions.error }}
      emptyState={
        <EmptyCard title="No sessions in the last 7 days" maw={680}>
          A session groups the runs of one conversation: send <Code>session.id</Code> (or <Code>gen_ai.conversation.id</Code>) on your spans, or the{" "}
          <Code>op-session-id</Code> header with gateway calls.
        </EmptyCard>
      }
      row={(s) => (
        <Table.Tr key={s.id} data-session-id={s.id}>
          <Table.Td>
            <Anchor size="sm" ff="monospace" renderRoot={(props) => <Link {...props} to="/traces" search={{ session: s.id }} />}>
              {s.id}
            </Anchor>
          </Table.Td>
          <Table.Td>{s.traces}</Table.Td>
          <Table.Td>{s.logs}</Table.Td>
          <Table.Td>{s.errors}</Table.Td>
          <Table.Td>{formatCost(s.costUsd)}</Table.Td>
          <Table.Td>
            <When value={s.startedAt} />
          </Table.Td>
          <Table.Td>
            <When value={s.lastAt} />
          </Table.Td>
        </Table.Tr>
      )}
    />
  );
}

export function TracesPage() {
  const search = useSearch({ from: "/traces" });
  const navigate = useNavigate();
  const view = search.view === "sessions" ? "sessions" : "traces";
  return (
    <>
      <PageHeader
        title="Traces"
        description="Your application's runs as OpenTelemetry traces (agent steps, tool calls, model calls), and the sessions they belong to."
      />
      <Group mb="md" gap="md">
        <SegmentedControl
          value={view}
          onChange={(v) => void navigate({ to: "/traces", search: v === "sessions" ? { view: "sessions" } : {} })}
          data={[
            { value: "traces", label: "Traces" },
            { value: "sessions", label: "Sessions" },
          ]}
        />
        {search.session && view === "traces" ? (
          <Group gap={4}>
            <Text size="sm">Session</Text>
            <Code>{search.session}</Code>
            <Anchor size="sm" renderRoot={(props) => <Link {...props} to="/traces" search={{}} />}>
              all traces
            </Anchor>
          </Group>
        ) : null}
      </Group>
      {view === "sessions" ? <SessionsTable /> : <TracesTable session={search.session} />}
    </>
  );
}
