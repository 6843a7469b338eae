import { and, desc, eq, inArray, lt, sql } from "drizzle-orm";
import { type Ctx, dbOf, withTx } from "../context";
import { costRecalculations, requestLogs } from "../../db/schema";
import type { Deps } from "../deps";
import { DomainError, notFound, parseInput } from "../../core/errors";
import type { Usage } from "../../providers";
import { resolveModel, requireRole } from "../projects";
import { enqueueJob, runTaskStep, type StepResult, type TaskKind } from "../jobs";
import { logConditions, resultRows, whereAll, closedHours, readRollupState } from "../logs";
import type { LogAttempt } from "../logs";
import { findBaseModel, findModelRow } from "../models";
import { type LogCost, logCost, ratesFor, allPriceOverrides, withOverride } from "../pricing";
import type { GivenRates } from "../pricing";
import { type CostRecalculation, RecalculateCostsInput } from "./schemas";

export const RECALCULATE_COSTS_JOB = "cost-recalculation";
/** Logs priced again per job step (one transaction). */
const BATCH = 1_000;

type TaskRow = typeof costRecalculations.$inferSelect;

const toRecalculation = (r: TaskRow): CostRecalculation => ({
  id: r.id,
  status: r.status,
  total: r.total,
  done: r.done,
  changed: r.changed,
  errorMessage: r.errorMessage ?? null,
  createdAt: r.createdAt,
  updatedAt: r.updatedAt,
});

/**
 * Prices the logs matching a filter again (after a price override was added or removed, or a newer
 * price table), in the background: a batch of 1,000 logs per step, newest first; follow it with
 * getCostRecalculation. Each log is priced at the prices in force when its call was made, from
 * the token classes it keeps (or its token columns, for logs older than the classes); its cost,
 * classes, price version and flag are rewritten, and the usage rollups of the closed hours it
 * falls in are summed again within a minute. One runs at a time per project (CONFLICT otherwise).
 */
export async function recalculateCosts(ctx: Ctx, raw: RecalculateCostsInput): Promise<CostRecalculation> {
  // Rewrites the cost of stored logs (and so usage and invoices): admin work, as prices are.
  requireRole(ctx.actor, "admin", "recalculate costs");
  const input = parseInput(RecalculateCostsInput, raw);
  const filter = input.filter ?? {};
  // One at a time per project: each walks every matching log, and a tenant must not queue thousands.
  const [running] = await dbOf(ctx)
    .select({ id: costRecalculations.id })
    .from(costRecalculations)
    .where(and(eq(costRecalculations.projectId, ctx.projectId), inArray(costRecalculations.status, ["QUEUED", "RUNNING"])))
    .limit(1);
  if (running) throw new DomainError("CONFLICT", `A cost recalculation is already running (${running.id}): wait for it to finish, then start another`);
  const [counted] = resultRows<{ n: number }>(
    await dbOf(ctx).execute(sql`select count(*)::int as n from ${requestLogs} where ${whereAll(logConditions(ctx.projectId, filter))}`),
  );
  const id = ctx.deps.ids("costRecalculation");
  const now = ctx.deps.clock();
  const [row] = await withTx(ctx, async (inTx, tx) => {
    const inserted = await tx
      .insert(costRecalculations)
      .values({ id, projectId: ctx.projectId, filter: filter as never, status: "QUEUED", total: Number(counted?.n ?? 0), createdAt: now, updatedAt: now })
      .returning();
    await enqueueJob(inTx, { kind: RECALCULATE_COSTS_JOB, payload: { taskId: id }, maxAttempts: 10 });
    return inserted;
  });
  ctx.deps.jobs.nudge();
  return toRecalculation(row!);
}

export async function getCostRecalculation(ctx: Ctx, raw: { id: string }): Promise<CostRecalculation> {
  const [row] = await dbOf(ctx)
    .select()
    .from(costRecalculations)
    .where(and(eq(costRecalculations.projectId, ctx.projectId), eq(costRecalculations.id, String(raw?.id ?? ""))));
  if (!row) throw notFound("Cost recalculation", String(raw?.id ?? ""));
  return toRecalculation(row);
}

const TASK: TaskKind<TaskRow> = {
  job: RECALCULATE_COSTS_JOB,
  load: async (deps, id) => (await deps.database.db.select().from(costRecalculations).where(eq(costRecalculations.id, id)))[0],
  isFinal: (t) => t.status === "DONE" || t.status === "ERROR",
  markRunning: async (deps, t) => {
    if (t.status === "QUEUED")
      await deps.database.db.update(costRecalculations).set({ status: "RUNNING", updatedAt: deps.clock() }).where(eq(costRecalculations.id, t.id));
  },
  markFailed: async (deps, t, message) => {
    await deps.database.db
      .update(costRecalculations)
      .set({ status: "ERROR", errorMessage: message, updatedAt: deps.clock() })
      .where(eq(costRecalculations.id, t.id));
  },
};

export async function failCostRecalculation(deps: Deps, input: { taskId: string; reason: string }): Promise<void> {
  const row = await TASK.load(deps, input.taskId);
  if (row && !TASK.isFinal(row)) await TASK.markFailed(deps, row, input.reason);
}

type LogRow = {
  id: string;
  model: string | null;
  provider: string | null;
  statusCode: number | null;
  cacheHit: boolean;
  durationMs: number | null;
  attempts: LogAttempt[] | null;
  inputTokens: number | null;
  outputTokens: number | null;
  cachedInputTokens: number | null;
  cacheWriteTokens: number | null;
  reasoningTokens: number | null;
  classes: Record<string, number> | null;
  costUsd: number | null;
  priceVersion: string | null;
  costFlag: string | null;
};

/** A log's usage in chat terms again, from its classes (or its token columns, for logs older than the classes). */
export function storedUsage(
  l: Pick<LogRow, "inputTokens" | "outputTokens" | "cachedInputTokens" | "cacheWriteTokens" | "reasoningTokens" | "classes">,
): Usage | null {
  if (l.inputTokens == null && l.outputTokens == null) return null;
  const input = l.inputTokens ?? 0;
  const output = l.outputTokens ?? 0;
  const c = l.classes;
  const write1h = c?.cache_write_1h_tokens ?? 0;
  return {
    prompt_tokens: input,
    completion_tokens: output,
    // prompt + completion: the reasoning is inside the output tokens, as the log keeps it.
    total_tokens: input + output,
    prompt_tokens_details: { cached_tokens: c ? (c.cache_read_tokens ?? 0) : (l.cachedInputTokens ?? 0), audio_tokens: c?.audio_input_tokens ?? 0 },
    completion_tokens_details: { reasoning_tokens: c ? (c.reasoning_tokens ?? 0) : (l.reasoningTokens ?? 0), audio_tokens: c?.audio_output_tokens ?? 0 },
    cache_creation_input_tokens: c ? (c.cache_write_5m_tokens ?? 0) + write1h : (l.cacheWriteTokens ?? 0),
    ...(write1h ? { cache_creation: { ephemeral_1h_input_tokens: write1h } } : {}),
  };
}

/** The price table's (or a fine-tune's catalogue) rates for the model that answered a log's call, at its time. */
async function baseRates(ctx: Ctx, l: LogRow, at: Date, fineTunes: Map<string, GivenRates | null>): Promise<GivenRates | null> {
  const answered = l.attempts?.findLast((a) => a.next === "answered")?.target;
  const name = answered ?? l.model;
  if (!name) return null;
  let route: ReturnType<typeof resolveModel>;
  try {
    route = resolveModel(name, ctx.deps.config.modelPrefixes);
  } catch {
    // A stored model string Hone cannot route (reports may name anything): no table price.
    return null;
  }
  if (route.provider === "hone") {
    if (!fineTunes.has(route.slug)) {
      const row = await findModelRow(ctx, route.slug);
      const pricing = row ? findBaseModel(row.baseModel)?.pricing : undefined;
      fineTunes.set(route.slug, pricing ? ratesFor("hone", name, at, { ...pricing, name: `hone:${route.slug}` }) : null);
    }
    return fineTunes.get(route.slug) ?? null;
  }
  return "upstreamModel" in route ? ratesFor(route.provider, route.upstreamModel, at) : null;
}

const same = (a: number | null, b: number | null) => (a === null || b === null ? a === b : Math.abs(a - b) <= 1e-12 * Math.max(1, Math.abs(a)));
const sameClasses = (a: Record<string, number> | null, b: Record<string, number> | null) => {
  const ka = Object.keys(a ?? {});
  if (ka.length !== Object.keys(b ?? {}).length) return false;
  return ka.every((k) => same(a![k] ?? null, b?.[k] ?? null));
};

/** One step: prices the next batch of logs again and records the progress. */
export async function runCostRecalculationStep(deps: Deps, input: { taskId: string }): Promise<StepResult> {
  return runTaskStep(deps, TASK, input.taskId, async (task, { ctx }) => {
    const where = logConditions(ctx.projectId, task.filter);
    if (task.cursor) where.push(lt(requestLogs.id, task.cursor));
    const logs: LogRow[] = await dbOf(ctx)
      .select({
        id: requestLogs.id,
        model: requestLogs.model,
        provider: requestLogs.provider,
        statusCode: requestLogs.statusCode,
        cacheHit: requestLogs.cacheHit,
        durationMs: requestLogs.durationMs,
        attempts: requestLogs.attempts,
        inputTokens: requestLogs.inputTokens,
        outputTokens: requestLogs.outputTokens,
        cachedInputTokens: requestLogs.cachedInputTokens,
        cacheWriteTokens: requestLogs.cacheWriteTokens,
        reasoningTokens: requestLogs.reasoningTokens,
        classes: requestLogs.classes,
        costUsd: requestLogs.costUsd,
        priceVersion: requestLogs.priceVersion,
        costFlag: requestLogs.costFlag,
      })
      .from(requestLogs)
      .where(whereAll(where))
      .orderBy(desc(requestLogs.id))
      .limit(BATCH);
    // Read afresh: an override added a moment ago on another process counts.
    const overrides = await allPriceOverrides(ctx);
    const fineTunes = new Map<string, GivenRates | null>();
    const changed: (LogCost & { id: string })[] = [];
    for (const l of logs) {
      if (l.cacheHit) continue;
      const at = new Date(Number.parseInt(l.id.slice(4, 16), 16));
      const rates = withOverride(overrides, l.model, at, await baseRates(ctx, l, at, fineTunes));
      const answered = l.statusCode == null || (l.statusCode >= 200 && l.statusCode < 300);
      const cost = logCost(storedUsage(l), rates, { answered, durationMs: l.durationMs });
      const unchanged =
        same(cost.costUsd, l.costUsd) && cost.priceVersion === l.priceVersion && cost.costFlag === l.costFlag && sameClasses(cost.classes, l.classes);
      if (!unchanged) changed.push({ id: l.id, ...cost });
    }
    const finished = logs.length < BATCH;
    await withTx(ctx, async (_inTx, tx) => {
      if (changed.length) {
        const json = JSON.stringify(
          changed.map((c) => ({ id: c.id, cost_usd: c.costUsd, classes: c.classes, price_version: c.priceVersion, cost_flag: c.costFlag })),
        );
        await tx.execute(sql`update request_logs l set cost_usd = x.cost_usd, classes = x.classes, price_version = x.price_version, cost_flag = x.cost_flag
          from jsonb_to_recordset(${json}::text::jsonb) as x(id text, cost_usd double precision, classes jsonb, price_version text, cost_flag text)
          where l.project_id = ${ctx.projectId} and l.id = x.id`);
        // The closed usage hours these logs fall in are summed again by the next rollup run.
        const state = await readRollupState(tx);
        const hours = state
          ? closedHours(
              state,
              changed.map((c) => c.id),
            )
          : [];
        if (hours.length) {
          await tx.execute(sql`insert into usage_stale_hours (project_id, hour)
            select ${ctx.projectId}, h from unnest(${`{${hours.map((h) => new Date(h).toISOString()).join(",")}}`}::timestamptz[]) h on conflict do nothing`);
        }
      }
      await tx
        .update(costRecalculations)
        .set({
          done: sql`${costRecalculations.done} + ${logs.length}`,
          changed: sql`${costRecalculations.changed} + ${changed.length}`,
          cursor: logs.at(-1)?.id ?? task.cursor,
          ...(finished ? { status: "DONE" as const } : {}),
          updatedAt: deps.clock(),
        })
        .where(eq(costRecalculations.id, task.id));
    });
    return finished ? { done: true } : { runAgainInMs: 0 };
  });
}
