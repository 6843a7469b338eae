// The traces section's data: traces and sessions of a window, and one trace whole. Components call these hooks.
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { type RouterOutputs, useTRPC } from "../../lib/trpc";

export type TraceSummary = RouterOutputs["traces"]["list"]["items"][number];
export type SessionSummary = RouterOutputs["traces"]["sessions"]["items"][number];
export type TraceData = RouterOutputs["traces"]["get"];
export type TraceSpan = TraceData["spans"][number];

/** The traces of the last 7 days (of one session, when given), newest first. */
export function useTraces(sessionId: string | undefined) {
  const trpc = useTRPC();
  const from = new Date(Math.floor(Date.now() / 60_000) * 60_000 - 7 * 86_400_000).toISOString();
  return useQuery({ ...trpc.traces.list.queryOptions({ from, first: 100, ...(sessionId ? { sessionId } : {}) }), placeholderData: keepPreviousData });
}

/** The sessions active in the last 7 days, latest first. */
export function useSessions() {
  const trpc = useTRPC();
  const from = new Date(Math.floor(Date.now() / 60_000) * 60_000 - 7 * 86_400_000).toISOString();
  return useQuery(trpc.traces.sessions.queryOptions({ from, first: 100 }));
}

export function useTrace(id: string) {
  const trpc = useTRPC();
  return useQuery(trpc.traces.get.queryOptions({ id }));
}
