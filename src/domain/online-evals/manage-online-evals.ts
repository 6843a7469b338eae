import { and, count, eq, inArray, sql } from "drizzle-orm";
import { type ListPageInput, orderedPage } from "../list-page";
import { dbOf, type Ctx } from "../context";
import { onlineEvals, routeVerdicts } from "../../db/schema";
import { readOrKnown, refreshAhead } from "../../db/read-or-known";
import { DomainError, notFound, parseInput } from "../../core/errors";
import { canonicalModel, requireScope } from "../projects";
import { resolveCriteriaRefs } from "../criteria";
import { resultRows } from "../logs";
import { type ActiveEval, CreateOnlineEvalInput, type OnlineEval, OnlineEvalIdInput, UpdateOnlineEvalInput } from "./schemas";

/** A project's online evaluations, at most (one per model). */
export const MAX_ONLINE_EVALS = 100;
/** How long a process serves a project's online evaluations as last read (others' changes show within it). */
const CACHE_MS = 5_000;
const DAY_MS = 86_400_000;

type Row = typeof onlineEvals.$inferSelect;

function toOnlineEval(row: Row, figures: { judged: number; passed: number } | undefined): OnlineEval {
  const judged = figures?.judged ?? 0;
  return {
    id: row.id,
    model: row.model,
    criteria: row.criteria,
    sampleRate: row.sampleRate,
    alertBelow: row.alertBelow,
    alertMinJudged: row.alertMinJudged,
    status: row.status,
    judged,
    passRate: judged ? (figures?.passed ?? 0) / judged : null,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/** The rows with their last 24 hours' verdicts on plain calls to their models (one query for all). */
async function withFigures(ctx: Ctx, rows: Row[]): Promise<OnlineEval[]> {
  if (!rows.length) return [];
  const since = new Date(ctx.deps.clock().getTime() - DAY_MS);
  const figures = resultRows<{ model: string; judged: number; passed: number }>(
    await dbOf(ctx).execute(sql`
      select model, count(*)::int as judged, (count(*) filter (where passed))::int as passed
      from ${routeVerdicts}
      where project_id = ${ctx.projectId} and route is null and passed is not null and created_at >= ${since.toISOString()}::timestamptz
        and model in (${sql.join(
          rows.map((r) => sql`${r.model}`),
          sql`, `,
        )})
      group by 1`),
  );
  const byModel = new Map(figures.map((f) => [f.model, { judged: Number(f.judged), passed: Number(f.passed) }]));
  return rows.map((r) => toOnlineEval(r, byModel.get(r.model)));
}

async function findRow(ctx: Ctx, id: string): Promise<Row> {
  const [row] = await dbOf(ctx)
    .select()
    .from(onlineEvals)
    .where(and(eq(onlineEvals.id, id), eq(onlineEvals.projectId, ctx.projectId)));
  if (!row) throw notFound("Online evaluation", id);
  return row;
}

/** The project's online evaluations, oldest first, each with its last 24 hours' pass rate. */
export async function listOnlineEvals(ctx: Ctx, raw?: ListPageInput): Promise<OnlineEval[]> {
  const scope = eq(onlineEvals.projectId, ctx.projectId);
  const page = await orderedPage(ctx, raw, { table: onlineEvals, id: onlineEvals.id, scope, what: "project's online evaluations" });
  const rows = await dbOf(ctx)
    .select()
    .from(onlineEvals)
    .where(and(scope, page.after))
    .orderBy(...page.order)
    .limit(Math.min(page.limit, MAX_ONLINE_EVALS));
  return withFigures(ctx, rows);
}

export async function getOnlineEval(ctx: Ctx, raw: { id: string }): Promise<OnlineEval> {
  const { id } = parseInput(OnlineEvalIdInput, raw);
  return (await withFigures(ctx, [await findRow(ctx, id)]))[0]!;
}

/** Every criterion reference exists in the project (and is listed once). */
async function checkedCriteria(ctx: Ctx, refs: string[]): Promise<string[]> {
  await resolveCriteriaRefs(ctx, refs);
  return refs;
}

/** This process's copy is dropped at once; other processes read the change within CACHE_MS. */
function forget(ctx: Ctx): void {
  ctx.deps.caches.onlineEvals.delete(ctx.projectId);
}

/**
 * Starts judging a share of the application's calls to a model: each sampled answer is judged by
 * the criteria after it was sent (the client never waits for it), as Hone's own calls.
 */
export async function createOnlineEval(ctx: Ctx, raw: CreateOnlineEvalInput): Promise<OnlineEval> {
  requireScope(ctx.actor, "write", "create online evaluations");
  const input = parseInput(CreateOnlineEvalInput, raw);
  const model = canonicalModel(input.model, ctx.deps.config.modelPrefixes);
  const criteria = await checkedCriteria(ctx, input.criteria);
  const db = dbOf(ctx);
  const [{ n }] = (await db.select({ n: count() }).from(onlineEvals).where(eq(onlineEvals.projectId, ctx.projectId))) as [{ n: number }];
  if (Number(n) >= MAX_ONLINE_EVALS) {
    throw new DomainError("VALIDATION", `A project has at most ${MAX_ONLINE_EVALS} online evaluations; delete one first`, {
      issues: [{ message: `at most ${MAX_ONLINE_EVALS} online evaluations`, path: ["model"] }],
    });
  }
  const now = ctx.deps.clock();
  const [row] = await db
    .insert(onlineEvals)
    .values({
      id: ctx.deps.ids("onlineEval"),
      projectId: ctx.projectId,
      model,
      criteria,
      sampleRate: input.sampleRate,
      alertBelow: input.alertBelow ?? null,
      alertMinJudged: input.alertMinJudged ?? 20,
      status: input.paused ? "PAUSED" : "ACTIVE",
      createdAt: now,
      updatedAt: now,
    })
    .onConflictDoNothing()
    .returning();
  if (!row) {
    throw new DomainError("CONFLICT", `${model} already has an online evaluation; change that one`, {
      issues: [{ message: "already evaluated", path: ["model"] }],
    });
  }
  forget(ctx);
  return toOnlineEval(row, undefined);
}

/** Changes its criteria, sample rate or alert (from the next calls on), or pauses and resumes it. */
export async function updateOnlineEval(ctx: Ctx, raw: UpdateOnlineEvalInput): Promise<OnlineEval> {
  requireScope(ctx.actor, "write", "change online evaluations");
  const input = parseInput(UpdateOnlineEvalInput, raw);
  await findRow(ctx, input.id);
  const set: Partial<typeof onlineEvals.$inferInsert> = { updatedAt: ctx.deps.clock() };
  if (input.criteria) set.criteria = await checkedCriteria(ctx, input.criteria);
  if (input.sampleRate != null) set.sampleRate = input.sampleRate;
  if (input.alertBelow !== undefined) set.alertBelow = input.alertBelow;
  if (input.alertMinJudged != null) set.alertMinJudged = input.alertMinJudged;
  if (input.status) set.status = input.status;
  await dbOf(ctx)
    .update(onlineEvals)
    .set(set)
    .where(and(eq(onlineEvals.id, input.id), eq(onlineEvals.projectId, ctx.projectId)));
  forget(ctx);
  return getOnlineEval(ctx, { id: input.id });
}

/** Stops judging the model; its verdicts stay (they sum up past calls). Returns its id. */
export async function deleteOnlineEval(ctx: Ctx, raw: { id: string }): Promise<{ id: string }> {
  requireScope(ctx.actor, "write", "delete online evaluations");
  const { id } = parseInput(OnlineEvalIdInput, raw);
  const gone = await dbOf(ctx)
    .delete(onlineEvals)
    .where(and(eq(onlineEvals.id, id), eq(onlineEvals.projectId, ctx.projectId)))
    .returning({ id: onlineEvals.id });
  if (!gone.length) throw notFound("Online evaluation", id);
  forget(ctx);
  return { id };
}

/**
 * The project's active online evaluations by model, as this process last read them (at most
 * CACHE_MS ago); while the database does not answer, the last copy read.
 */
export async function activeOnlineEvals(ctx: Ctx): Promise<Map<string, ActiveEval>> {
  const cache = ctx.deps.caches.onlineEvals;
  const now = ctx.deps.clock().getTime();
  const kept = cache.get(ctx.projectId);
  if (kept && kept.expires > now) {
    refreshAhead(cache, ctx.projectId, kept.expires, CACHE_MS, now, () => readActiveEvals(ctx, kept, now), ctx.deps.logger);
    return kept.value;
  }
  return readActiveEvals(ctx, kept, now);
}

/** Reads them into the cache; a refresh (`kept` still live) writes only over the entry it started from. */
async function readActiveEvals(ctx: Ctx, kept: { value: Map<string, ActiveEval>; expires: number } | undefined, now: number): Promise<Map<string, ActiveEval>> {
  const cache = ctx.deps.caches.onlineEvals;
  const ahead = kept !== undefined && kept.expires > now;
  const read = await readOrKnown(
    ctx.deps.database,
    async () => {
      const rows = await dbOf(ctx)
        .select({
          id: onlineEvals.id,
          model: onlineEvals.model,
          criteria: onlineEvals.criteria,
          sampleRate: onlineEvals.sampleRate,
          alertBelow: onlineEvals.alertBelow,
          alertMinJudged: onlineEvals.alertMinJudged,
        })
        .from(onlineEvals)
        .where(and(eq(onlineEvals.projectId, ctx.projectId), inArray(onlineEvals.status, ["ACTIVE"])))
        .limit(MAX_ONLINE_EVALS);
      return new Map(rows.map((r) => [r.model, r]));
    },
    kept ? { value: kept.value } : undefined,
  );
  if (ahead && cache.get(ctx.projectId) !== kept) return read.value;
  if (cache.size >= 10_000) cache.delete(cache.keys().next().value!);
  cache.set(ctx.projectId, { value: read.value, expires: now + (read.fresh ? CACHE_MS : 1_000) });
  return read.value;
}
