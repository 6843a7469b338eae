import { and, desc, eq, gte, ilike, lt, lte, or, sql } from "drizzle-orm";
import type { Actor, BaseCtx } from "../context";
import { dbOf } from "../context";
import { auditEvents, projects } from "../../db/schema";
import type { Deps } from "../deps";
import { parseInput } from "../../core/errors";
import { errorFields } from "../../core/logger";
import { asOrganizationActor, requireRole } from "../projects";
import { z } from "zod";

export type AuditTransport = "trpc" | "graphql" | "rest" | "cli" | "console";

/** One change to record: the verb as its transport names it, the resource, and what was sent (secrets removed here). */
export type AuditRecord = {
  actor: Actor;
  projectId: string | null;
  transport: AuditTransport;
  verb: string;
  input: unknown;
  outcome: "ok" | "error";
  /** An error's code, when the change was refused or failed. */
  error?: string;
  address: string | null;
  userAgent: string | null;
  requestId: string | null;
  /** The resource the answer named, when the input did not (an id just made). */
  resultId?: string | null;
  /**
   * The organisation whose log it belongs in, when the actor is no person of it: a single sign-on
   * refused before anyone is signed in concerns the account it tried, and that account's owners.
   */
  organizationId?: string | null;
};

// Fields whose values are never kept: keys, tokens, passwords, secrets, credentials, headers.
const SECRET_FIELD = /(secret|password|passwd|token|apikey|api_key|^key$|authorization|credential|cookie|headers|privatekey)/i;
const MAX_STRING = 200;
const MAX_ITEMS = 20;
const MAX_DEPTH = 4;
const MAX_SUMMARY_BYTES = 4_000;

/** What was sent, for the record: secret fields replaced, long strings and lists cut, depth capped. */
export function summarize(value: unknown, depth = 0): unknown {
  if (value === null || value === undefined) return value ?? null;
  if (typeof value === "string") return value.length > MAX_STRING ? `${value.slice(0, MAX_STRING)}… (${value.length} chars)` : value;
  if (typeof value === "number" || typeof value === "boolean") return value;
  if (value instanceof Date) return value.toISOString();
  if (depth >= MAX_DEPTH) return "…";
  if (Array.isArray(value)) {
    const items = value.slice(0, MAX_ITEMS).map((v) => summarize(v, depth + 1));
    if (value.length > MAX_ITEMS) items.push(`… (${value.length} items)`);
    return items;
  }
  if (typeof value === "object") {
    const out: Record<string, unknown> = {};
    let n = 0;
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      if (n++ >= 50) {
        out["…"] = "more fields";
        break;
      }
      out[k] = SECRET_FIELD.test(k) && v !== null && v !== undefined && v !== "" ? "[redacted]" : summarize(v, depth + 1);
    }
    return out;
  }
  return String(value);
}

const ID_FIELDS = ["id", "datasetId", "criterionId", "modelId", "evaluationId", "keyId", "logId", "slug", "userId", "projectId", "provider"];

function resourceOf(verb: string, input: unknown, resultId: string | null | undefined): { type: string | null; id: string | null } {
  // The verb names the resource: datasets.create -> dataset; createDataset -> Dataset; POST /datasets/:id -> datasets.
  const type = verb.includes(".")
    ? verb.split(".")[0]!
    : verb.startsWith("/") || /^(GET|POST|PUT|PATCH|DELETE) /.test(verb)
      ? (verb.split(" ")[1]?.split("/")[1] ?? null)
      : verb.replace(
          /^(create|update|delete|set|add|remove|rename|revoke|invite|start|run|cancel|test|rollback|import|upload|accept|relabel|switch|sign|deploy|label|save|clear|change)/,
          "",
        ) || verb;
  let id: string | null = null;
  if (input && typeof input === "object" && !Array.isArray(input)) {
    const o = input as Record<string, unknown>;
    const inner = o.input && typeof o.input === "object" ? (o.input as Record<string, unknown>) : {};
    for (const f of ID_FIELDS) {
      const v = o[f] ?? inner[f];
      if (typeof v === "string" && v.length <= 200) {
        id = v;
        break;
      }
    }
  }
  return { type, id: id ?? resultId ?? null };
}

const actorIdOf = (a: Actor): { id: string | null; label: string | null } => {
  switch (a.type) {
    case "user":
      return { id: a.userId, label: a.email };
    case "apiKey":
      return { id: a.keyId, label: `API key ${a.keyId}` };
    case "admin":
      return { id: null, label: "admin token" };
    case "cli":
      return { id: null, label: "command line" };
    case "system":
      return { id: null, label: a.job };
  }
};

/**
 * Appends one change to the audit log. Never throws: a record that cannot be written is logged as an
 * error (the change itself has happened or been refused already).
 */
export async function recordAudit(deps: Deps, r: AuditRecord): Promise<void> {
  try {
    const who = actorIdOf(r.actor);
    const resource = resourceOf(r.verb, r.input, r.resultId);
    let summary = summarize(r.input) as Record<string, unknown> | null;
    if (summary !== null && typeof summary !== "object") summary = { value: summary };
    if (summary && JSON.stringify(summary).length > MAX_SUMMARY_BYTES) summary = { truncated: true, fields: Object.keys(summary).slice(0, 50) };
    if (r.error) summary = { ...(summary ?? {}), error: r.error };
    const org =
      r.actor.type === "user"
        ? r.actor.organizationId
        : (r.organizationId ?? (r.projectId ? sql`(select ${projects.organizationId} from ${projects} where ${projects.id} = ${r.projectId})` : null));
    await deps.database.db.insert(auditEvents).values({
      id: deps.ids("auditEvent"),
      at: deps.clock(),
      organizationId: org,
      projectId: r.projectId,
      actorType: r.actor.type,
      actorId: who.id,
      actorLabel: who.label,
      transport: r.transport,
      verb: r.verb.slice(0, 200),
      resourceType: resource.type?.slice(0, 100) ?? null,
      resourceId: resource.id,
      outcome: r.outcome,
      summary,
      address: r.address?.slice(0, 100) ?? null,
      userAgent: r.userAgent?.slice(0, 300) ?? null,
      requestId: r.requestId?.slice(0, 200) ?? null,
    });
  } catch (err) {
    deps.logger.error("could not write an audit record", { verb: r.verb, requestId: r.requestId, ...errorFields(err) });
  }
}

export const AuditFilter = z
  .object({
    actor: z.string().trim().max(320).optional(),
    verb: z.string().trim().max(200).optional(),
    resourceId: z.string().trim().max(200).optional(),
    projectId: z.string().trim().max(100).optional(),
    transport: z.enum(["trpc", "graphql", "rest", "cli", "console"]).optional(),
    outcome: z.enum(["ok", "error"]).optional(),
    from: z.coerce.date().optional(),
    to: z.coerce.date().optional(),
  })
  .strict();
export type AuditFilter = z.input<typeof AuditFilter>;

export const AuditPageInput = z.strictObject({
  filter: AuditFilter.optional(),
  first: z.number().int().min(1).max(500).default(50),
  after: z.string().max(200).optional(),
});
export type AuditPageInput = z.input<typeof AuditPageInput>;

export type AuditEvent = typeof auditEvents.$inferSelect;

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * The audit log an owner or admin may read: a person's, their organisation's; an admin-level key's,
 * its project's. Newest first, paged by cursor (the last id seen).
 */
export async function listAudit(orgCtx: BaseCtx & { projectId?: string }, raw: AuditPageInput): Promise<{ events: AuditEvent[]; next: string | null }> {
  const ctx = asOrganizationActor(orgCtx);
  requireRole(ctx.actor, "admin", "read the audit log");
  const input = parseInput(AuditPageInput, raw);
  const f = input.filter ?? {};
  const scope =
    ctx.actor.type === "user"
      ? eq(auditEvents.organizationId, ctx.actor.organizationId)
      : ctx.projectId
        ? eq(auditEvents.projectId, ctx.projectId)
        : ctx.actor.type === "admin" || ctx.actor.type === "cli"
          ? undefined
          : eq(auditEvents.projectId, "");
  const cond = and(
    scope,
    f.actor ? or(ilike(auditEvents.actorLabel, `%${escapeLike(f.actor)}%`), eq(auditEvents.actorId, f.actor)) : undefined,
    f.verb ? ilike(auditEvents.verb, `%${escapeLike(f.verb)}%`) : undefined,
    f.resourceId ? eq(auditEvents.resourceId, f.resourceId) : undefined,
    f.projectId ? eq(auditEvents.projectId, f.projectId) : undefined,
    f.transport ? eq(auditEvents.transport, f.transport) : undefined,
    f.outcome ? eq(auditEvents.outcome, f.outcome) : undefined,
    f.from ? gte(auditEvents.at, new Date(f.from)) : undefined,
    f.to ? lte(auditEvents.at, new Date(f.to)) : undefined,
    input.after ? lt(auditEvents.id, input.after) : undefined,
  );
  const rows = await dbOf(ctx)
    .select()
    .from(auditEvents)
    .where(cond)
    .orderBy(desc(auditEvents.id))
    .limit(input.first + 1);
  const more = rows.length > input.first;
  const events = more ? rows.slice(0, input.first) : rows;
  return { events, next: more ? events[events.length - 1]!.id : null };
}

/** An audit event as one JSON line (export). */
export const auditLine = (e: AuditEvent) =>
  JSON.stringify({
    id: e.id,
    at: e.at.toISOString(),
    organizationId: e.organizationId,
    projectId: e.projectId,
    actor: { type: e.actorType, id: e.actorId, label: e.actorLabel },
    transport: e.transport,
    action: e.verb,
    resource: { type: e.resourceType, id: e.resourceId },
    outcome: e.outcome,
    summary: e.summary,
    address: e.address,
    userAgent: e.userAgent,
    requestId: e.requestId,
  });

/** The events past HONE_AUDIT_RETENTION_DAYS are deleted, a bounded batch at a time (the only deletes the table allows). */
export async function purgeOldAudit(deps: Deps): Promise<number> {
  const before = new Date(deps.clock().getTime() - deps.config.auditRetentionDays * 86_400_000);
  return deps.database.db.transaction(async (tx) => {
    await tx.execute(sql`select set_config('hone.audit_purge', 'on', true)`);
    const old = tx.select({ id: auditEvents.id }).from(auditEvents).where(lt(auditEvents.at, before)).limit(5_000);
    const gone = await tx.delete(auditEvents).where(sql`${auditEvents.id} in ${old}`).returning({ id: auditEvents.id });
    return gone.length;
  });
}

export const requireAuditReader = (actor: Actor) => requireRole(actor, "admin", "read the audit log");
