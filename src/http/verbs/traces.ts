import { getTrace, listSessions, listTraces, type Page, type SessionSummary, type Trace, type TraceSummary } from "../../domain/traces";
import { logDatesOut, toWireDate } from "../dates";
import { SessionPageRef, TracePageRef, TraceRef } from "../graphql/types/traces";
import { verbField } from "../graphql/verb-field";
import { verbQuery } from "../trpc/verb-procedure";

// The traces area's verbs on tRPC and GraphQL, a line each (docs/architecture.md "Adding a verb").

const traceOut = (t: Trace) => ({
  ...t,
  startedAt: t.startedAt ? toWireDate(t.startedAt) : null,
  endedAt: t.endedAt ? toWireDate(t.endedAt) : null,
  logs: t.logs.map(logDatesOut),
  spans: t.spans.map((s) => ({ ...s, startedAt: s.startedAt ? toWireDate(s.startedAt) : null, endedAt: s.endedAt ? toWireDate(s.endedAt) : null })),
});

const tracePageOut = (p: Page<TraceSummary>) => ({
  ...p,
  items: p.items.map((t) => ({ ...t, startedAt: toWireDate(t.startedAt), endedAt: toWireDate(t.endedAt) })),
});
const sessionPageOut = (p: Page<SessionSummary>) => ({
  ...p,
  items: p.items.map((s) => ({ ...s, startedAt: toWireDate(s.startedAt), lastAt: toWireDate(s.lastAt) })),
});

/** tRPC `traces.*`. */
export const tracesProcedures = {
  get: verbQuery(getTrace, traceOut),
  list: verbQuery(listTraces, tracePageOut),
  sessions: verbQuery(listSessions, sessionPageOut),
};

/** GraphQL: fields named as the verbs. */
export function tracesFields(): void {
  verbField(getTrace, { type: TraceRef });
  verbField(listTraces, { type: TracePageRef });
  verbField(listSessions, { type: SessionPageRef });
}
