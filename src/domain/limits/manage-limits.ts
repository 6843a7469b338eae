import { and, asc, desc, eq, gt, inArray, sql } from "drizzle-orm";
import { type Ctx, dbOf } from "../context";
import { liveEntry, readOrKnown } from "../../db/read-or-known";
import { apiKeys, limitCounters, limits } from "../../db/schema";
import { DomainError, notFound, parseInput } from "../../core/errors";
import { requireFullKey } from "../projects";
import { verb } from "../verb";
import { ListPageInput, orderedPage } from "../list-page";
import { type Limit, LimitIdInput, type ProjectLimits, type LimitSpend, LimitSpendInput, MAX_LIMITS, type Metric, SetLimitInput } from "./schemas";

/** How long a process enforces the limits it read (another process's change applies within it). */
const LIMITS_TTL_MS = 5_000;

type Row = typeof limits.$inferSelect;
const toLimit = (r: Row): Limit => ({
  id: r.id,
  scope: r.scope,
  keyId: r.keyId,
  tagKey: r.tagKey,
  tagValue: r.tagValue,
  requestsPerMinute: r.requestsPerMinute,
  tokensPerMinute: r.tokensPerMinute,
  costPerDayUsd: r.costPerDayUsd,
  costPerMonthUsd: r.costPerMonthUsd,
  unpricedCalls: r.unpricedCalls === "allow" ? "allow" : "refuse",
  createdAt: r.createdAt,
  updatedAt: r.updatedAt,
});

const subjectOf = (i: { scope: string; keyId?: string | null; tagKey?: string | null; tagValue?: string | null }) =>
  i.scope === "project" ? "project" : i.scope === "key" ? `key:${i.keyId}` : i.tagValue != null ? `tag:${i.tagKey}=${i.tagValue}` : `tag:${i.tagKey}`;

/** The project's own limit first, then keys', then tags'. */
const SCOPE_RANK = sql`(case ${limits.scope} when 'project' then 0 when 'key' then 1 else 2 end)`;

/** A page of the project's limits: the project's own first, then keys', then tags' (list-page.ts). */
export const listLimits = verb({
  name: "limits",
  description:
    "A page of the project's limits, the project's own first, then keys', then tags': at most `first` (default and ceiling HONE_MAX_PAGE_SIZE), after `after` (an id)",
  kind: "query",
  role: "viewer",
  input: ListPageInput,
  run: async (ctx: Ctx, raw?: ListPageInput): Promise<Limit[]> => {
    const scope = eq(limits.projectId, ctx.projectId);
    const page = await orderedPage(ctx, raw, { table: limits, id: limits.id, by: [SCOPE_RANK, limits.subject], scope, what: "project's limits" });
    const rows = await dbOf(ctx)
      .select()
      .from(limits)
      .where(and(scope, page.after))
      .orderBy(...page.order)
      .limit(page.limit);
    return rows.map(toLimit);
  },
});

/** All the project's limits (at most MAX_LIMITS), in the list's order: what the gateway enforces. */
async function allLimits(ctx: Ctx): Promise<Limit[]> {
  const rows = await dbOf(ctx)
    .select()
    .from(limits)
    .where(eq(limits.projectId, ctx.projectId))
    .orderBy(SCOPE_RANK, asc(limits.subject), asc(limits.id))
    .limit(MAX_LIMITS);
  return rows.map(toLimit);
}

/**
 * Sets one subject's limits (the project, a key, a tag value, or each value of a tag), replacing
 * the ones it had. What was counted in the current windows still counts: a lower cap applies at once.
 */
export const setLimit = verb({
  name: "setLimit",
  description: "Sets one subject's limits, replacing the ones it had (needs a key with every scope)",
  kind: "mutation",
  role: "admin",
  input: SetLimitInput,
  graphqlArgs: "input",
  run: async (ctx: Ctx, raw: SetLimitInput): Promise<Limit> => {
    requireFullKey(ctx.actor, "set limits");
    const input = parseInput(SetLimitInput, raw);
    const db = dbOf(ctx);
    if (input.keyId) {
      const [key] = await db
        .select({ id: apiKeys.id })
        .from(apiKeys)
        .where(and(eq(apiKeys.projectId, ctx.projectId), eq(apiKeys.id, input.keyId)));
      if (!key) throw notFound("API key", input.keyId);
    }
    const subject = subjectOf(input);
    const [existing] = await db
      .select({ id: limits.id })
      .from(limits)
      .where(and(eq(limits.projectId, ctx.projectId), eq(limits.subject, subject)));
    if (!existing && (await db.$count(limits, eq(limits.projectId, ctx.projectId))) >= MAX_LIMITS) {
      throw new DomainError("VALIDATION", `A project has at most ${MAX_LIMITS} limits; delete one first`, {
        issues: [{ message: `at most ${MAX_LIMITS} limits`, path: ["scope"] }],
      });
    }
    const now = ctx.deps.clock();
    const caps = {
      requestsPerMinute: input.requestsPerMinute ?? null,
      tokensPerMinute: input.tokensPerMinute ?? null,
      costPerDayUsd: input.costPerDayUsd ?? null,
      costPerMonthUsd: input.costPerMonthUsd ?? null,
      unpricedCalls: input.unpricedCalls ?? "refuse",
    };
    const [row] = await db
      .insert(limits)
      .values({
        id: ctx.deps.ids("limit"),
        projectId: ctx.projectId,
        scope: input.scope,
        keyId: input.keyId ?? null,
        tagKey: input.tagKey ?? null,
        tagValue: input.tagValue ?? null,
        subject,
        ...caps,
        createdAt: now,
        updatedAt: now,
      })
      .onConflictDoUpdate({ target: [limits.projectId, limits.subject], set: { ...caps, updatedAt: now } })
      .returning();
    ctx.deps.caches.limits.delete(ctx.projectId);
    return toLimit(row!);
  },
});

export const deleteLimit = verb({
  name: "deleteLimit",
  description: "Deletes a limit; returns its id",
  kind: "mutation",
  role: "admin",
  input: LimitIdInput,
  run: async (ctx: Ctx, raw: { id: string }): Promise<{ id: string; deleted: true }> => {
    requireFullKey(ctx.actor, "delete limits");
    const { id } = parseInput(LimitIdInput, raw);
    const gone = await dbOf(ctx)
      .delete(limits)
      .where(and(eq(limits.projectId, ctx.projectId), eq(limits.id, id)))
      .returning({ id: limits.id });
    if (!gone.length) throw notFound("Limit", id);
    ctx.deps.caches.limits.delete(ctx.projectId);
    return { id, deleted: true };
  },
});

const NO_LIMITS: ProjectLimits = { project: null, byKey: new Map(), byTag: new Map(), empty: true };

function arrange(list: Limit[]): ProjectLimits {
  if (!list.length) return NO_LIMITS;
  const out: ProjectLimits = { project: null, byKey: new Map(), byTag: new Map(), empty: false };
  for (const l of list) {
    if (l.scope === "project") out.project = l;
    else if (l.scope === "key") out.byKey.set(l.keyId!, l);
    else {
      let t = out.byTag.get(l.tagKey!);
      if (!t) out.byTag.set(l.tagKey!, (t = { each: null, values: new Map() }));
      if (l.tagValue == null) t.each = l;
      else t.values.set(l.tagValue, l);
    }
  }
  return out;
}

/** Reads in flight, by project: a burst of calls that all find the cache stale waits on one read. */
const reading = new WeakMap<object, Map<string, Promise<ProjectLimits>>>();

/** The project's limits when this process read them less than 5 s ago (no wait), else null. */
export function freshProjectLimits(ctx: Ctx): ProjectLimits | null {
  const now = ctx.deps.clock().getTime();
  return liveEntry(ctx.deps.caches.limits, ctx.projectId, LIMITS_TTL_MS, now, (kept) => readLimits(ctx, kept, now), ctx.deps.logger);
}

/**
 * The project's limits as this process enforces them: read at most every 5 s; while the database
 * is away, the ones last read. A process that never read them waits for the database (as it does
 * to check a key it never saw): it does not admit calls unchecked.
 */
export async function projectLimits(ctx: Ctx): Promise<ProjectLimits> {
  return freshProjectLimits(ctx) ?? readLimits(ctx, ctx.deps.caches.limits.get(ctx.projectId), ctx.deps.clock().getTime());
}

type KeptLimits = { value: ProjectLimits; expires: number };

/**
 * Reads the limits into the cache, one read per project at a time. A refresh (`kept` still live)
 * is not shared with misses and writes only over the entry it started from: a limit changed here
 * meanwhile (its entry forgotten) is never answered with what was read before.
 */
function readLimits(ctx: Ctx, kept: KeptLimits | undefined, now: number): Promise<ProjectLimits> {
  const cache = ctx.deps.caches.limits;
  const ahead = kept !== undefined && kept.expires > now;
  const load = async () => {
    const r = await readOrKnown(ctx.deps.database, async () => arrange(await allLimits(ctx)), kept ? { value: kept.value } : undefined);
    if (ahead && cache.get(ctx.projectId) !== kept) return r.value;
    if (cache.size >= 10_000) cache.delete(cache.keys().next().value!);
    cache.set(ctx.projectId, { value: r.value, expires: now + (r.fresh ? LIMITS_TTL_MS : 1_000) });
    return r.value;
  };
  if (ahead) return load();
  let inFlight = reading.get(cache);
  if (!inFlight) reading.set(cache, (inFlight = new Map()));
  const pending = inFlight.get(ctx.projectId);
  if (pending) return pending;
  const read = load().finally(() => inFlight.delete(ctx.projectId));
  inFlight.set(ctx.projectId, read);
  return read;
}

export const capOf = (l: Limit, metric: Metric): number | null =>
  metric === "requests" ? l.requestsPerMinute : metric === "tokens" ? l.tokensPerMinute : metric === "usd_day" ? l.costPerDayUsd : l.costPerMonthUsd;

/**
 * What each limit's current windows hold: per limit and capped quantity (and per tag value of a
 * per-value limit, the most spent first), spent and reserved against the cap.
 */
export const limitSpend = verb({
  name: "limitSpend",
  description: "What each limit's current windows hold against their caps (per tag value: the most spent first)",
  kind: "query",
  role: "viewer",
  input: LimitSpendInput,
  run: async (ctx: Ctx, raw?: { limitId?: string | null; first?: number | null }): Promise<LimitSpend[]> => {
    const input = parseInput(LimitSpendInput, raw) ?? {};
    const list = (await allLimits(ctx)).filter((l) => !input.limitId || l.id === input.limitId);
    if (input.limitId && !list.length) throw notFound("Limit", input.limitId);
    if (!list.length) return [];
    const now = ctx.deps.clock();
    const rows = await dbOf(ctx)
      .select()
      .from(limitCounters)
      .where(
        and(
          inArray(
            limitCounters.limitId,
            list.map((l) => l.id),
          ),
          gt(limitCounters.windowEnd, now),
        ),
      )
      .orderBy(desc(limitCounters.spent))
      .limit(20_000);
    const first = input.first ?? 100;
    const byLimit = new Map(list.map((l) => [l.id, l]));
    const seen = new Map<string, number>();
    const out: LimitSpend[] = [];
    for (const r of rows) {
      const l = byLimit.get(r.limitId)!;
      const cap = capOf(l, r.metric);
      if (cap == null || r.windowStart.getTime() > now.getTime()) continue;
      const k = `${r.limitId}\u0000${r.metric}`;
      const n = seen.get(k) ?? 0;
      if (n >= first) continue;
      seen.set(k, n + 1);
      out.push({
        limitId: r.limitId,
        metric: r.metric,
        value: l.scope === "tag" && l.tagValue == null ? r.value : null,
        cap,
        spent: r.spent,
        reserved: Math.min(Math.max(r.leased, r.spent), Math.max(cap, r.spent)),
        windowStart: r.windowStart,
        windowEnd: r.windowEnd,
      });
    }
    return out;
  },
});
