import type { Actor } from "../domain/context";
import type { Deps } from "../domain/deps";
import { type AuditTransport, recordAudit } from "../domain/audit";
import { toDomainError } from "../core/errors";
import { clientAddress } from "./client-address";
import { requestMeta } from "./request-meta";

/** The client of a request, as an audit record and a session list show it. */
export const clientOf = (deps: Deps, request: Request) => ({
  address: clientAddress(request, deps.config.trustedProxies),
  userAgent: request.headers.get("user-agent"),
});

/**
 * Records a change made through a transport. Refusals for want of a role or scope are recorded
 * too (someone tried); other failures (bad input, unknown ids) change nothing and are not.
 */
export async function auditRequest(
  deps: Deps,
  request: Request,
  change: { actor: Actor | null; projectId: string | null; transport: AuditTransport; verb: string; input: unknown; error?: unknown; resultId?: string | null },
): Promise<void> {
  let error: string | undefined;
  if (change.error !== undefined) {
    const code = toDomainError(change.error).code;
    if (code !== "FORBIDDEN") return;
    error = code;
    // A client hammering what it may not do must not fill the audit log: refusals are recorded up
    // to REFUSALS_PER_MINUTE per actor (this process); past that in the same minute, not.
    if (!refusalRecorded(change.actor, deps.clock().getTime())) return;
  }
  await recordAudit(deps, {
    actor: change.actor ?? { type: "system", job: "anonymous" },
    projectId: change.projectId,
    transport: change.transport,
    verb: change.verb,
    input: change.input,
    outcome: error ? "error" : "ok",
    error,
    ...clientOf(deps, request),
    requestId: requestMeta(request).requestId,
    resultId: change.resultId ?? null,
  });
}

/** Refusals recorded per actor per minute, in each process. */
export const REFUSALS_PER_MINUTE = 20;
const refusals = new Map<string, { minute: number; n: number }>();

function refusalRecorded(actor: Actor | null, now: number): boolean {
  const who = !actor ? "anonymous" : actor.type === "apiKey" ? `key:${actor.keyId}` : actor.type === "user" ? `user:${actor.userId}` : actor.type;
  const minute = Math.floor(now / 60_000);
  let seen = refusals.get(who);
  if (!seen || seen.minute !== minute) {
    if (refusals.size >= 10_000) refusals.clear();
    refusals.set(who, (seen = { minute, n: 0 }));
  }
  return ++seen.n <= REFUSALS_PER_MINUTE;
}

/** The id an answer names, when it names one at its top (what a create just made). */
export function resultIdOf(result: unknown): string | null {
  if (result && typeof result === "object" && !Array.isArray(result)) {
    const o = result as Record<string, unknown>;
    for (const f of ["id", "projectId", "userId", "slug"]) if (typeof o[f] === "string") return o[f] as string;
  }
  return null;
}
