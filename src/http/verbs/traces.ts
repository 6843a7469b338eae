import { getTrace, type Trace } from "../../domain/traces";
import { logDatesOut, toWireDate } from "../dates";
import { TraceRef } from "../graphql/types/traces";
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

/** tRPC `traces.*`. */
export const tracesProcedures = {
  get: verbQuery(getTrace, traceOut),
};

/** GraphQL: fields named as the verbs. */
export function tracesFields(): void {
  verbField(getTrace, { type: TraceRef });
}
