/**
 * How a date crosses a transport: an ISO 8601 string in UTC with milliseconds. REST, GraphQL
 * (the DateTime scalar) and tRPC (which has no transformer, so its types must say string) all
 * convert through here, so the three can never disagree on the format.
 */
export function toWireDate(d: Date): string;
export function toWireDate(d: Date | null | undefined): string | null;
export function toWireDate(d: Date | null | undefined): string | null {
  return d ? d.toISOString() : null;
}

/** A log's dates as the wire has them (tRPC: logs.list, traces.get). */
export const logDatesOut = <L extends { requestedAt: Date | null; receivedAt: Date | null; createdAt: Date }>(l: L) => ({
  ...l,
  requestedAt: toWireDate(l.requestedAt),
  receivedAt: toWireDate(l.receivedAt),
  createdAt: toWireDate(l.createdAt),
});
