import { and, eq, isNull, sql } from "drizzle-orm";
import type { Ctx } from "../context";
import { dbOf } from "../context";
import { routeVerdicts } from "../../db/schema";
import { errorFields } from "../../core/logger";
import type { ChatCompletion } from "../../providers";
import { canonicalModel } from "../projects";
import { resolveCriteriaRefs, judgeOutput } from "../criteria";
import { resultRows } from "../logs";
import { raiseAlert } from "../webhooks";
import { activeOnlineEvals } from "./manage-online-evals";

/** Sampled judgements in flight on this process at most: past it, a sample is skipped, never queued. */
const MAX_IN_FLIGHT = 64;
const HOUR_MS = 3_600_000;
/** A target whose pass rate was checked with enough judged calls is not checked again for this long (per process). */
const CHECK_EVERY_MS = 60_000;

export type JudgedInput = { messages: unknown[]; tools?: unknown[] | null; tool_choice?: unknown };
/** What a verdict is about: a route (and its answering version) or a plain model call; the model that answered either way. */
export type SampleTarget = { route: string | null; version: string | null; model: string | null };
/** The pass rate below which the project's webhook is alerted, and the judged calls in an hour it needs first. */
export type PassRateAlert = { below: number; minJudged: number };

/**
 * Judges one sampled answer off the answer's path: the caller has answered (or is answering) its
 * client, which never waits for this. Each criterion's judge call is Hone's own (logged as
 * internal); the verdict is kept for the target's pass rate, or, when no judge could give one,
 * kept as such (passed null, with the error). At most MAX_IN_FLIGHT at a time on a process.
 */
export function judgeSample(
  ctx: Ctx,
  target: SampleTarget,
  criteria: string[],
  alert: PassRateAlert | null,
  input: JudgedInput,
  completion: ChatCompletion,
): void {
  const output = completion.choices[0]?.message;
  const counter = ctx.deps.caches.routeJudging;
  if (!output) return;
  if (counter.inFlight >= MAX_IN_FLIGHT) {
    counter.skipped++;
    return;
  }
  counter.inFlight++;
  void (async () => {
    let passed: boolean | null = null;
    let error: string | null = null;
    try {
      const resolved = await resolveCriteriaRefs(ctx, criteria);
      const verdicts = await Promise.all(
        resolved.map((c) =>
          judgeOutput(ctx, c, { messages: input.messages, tools: input.tools, tool_choice: input.tool_choice, output: output as Record<string, unknown> }),
        ),
      );
      passed = verdicts.every((v) => v.score >= 1);
    } catch (err) {
      error = err instanceof Error ? err.message : String(err);
    }
    await dbOf(ctx)
      .insert(routeVerdicts)
      .values({ id: ctx.deps.ids("routeVerdict"), projectId: ctx.projectId, ...target, passed, error, createdAt: ctx.deps.clock() });
    if (alert && passed !== null) await checkPassRate(ctx, target, alert);
  })()
    .catch((err) => ctx.deps.logger.warn("a sampled judgement was not stored", { route: target.route, model: target.model, ...errorFields(err) }))
    .finally(() => {
      counter.inFlight--;
    });
}

/**
 * After an answer to a plain model call (no route): when the project evaluates that model online,
 * a share of its answers (its sample rate) is judged. Nothing here waits for the database on the
 * answer's path: the online evaluations are read (usually from memory) after it was sent.
 */
export function sampleModelCall(ctx: Ctx, requestedModel: string, input: JudgedInput, completion: ChatCompletion): void {
  if (ctx.internal) return;
  const model = canonicalModel(requestedModel, ctx.deps.config.modelPrefixes);
  const known = ctx.deps.caches.onlineEvals.get(ctx.projectId);
  if (known && known.expires > ctx.deps.clock().getTime()) {
    // The common case, in memory: nothing evaluated, or this call not in the sample.
    const e = known.value.get(model);
    if (e && ctx.deps.random() < e.sampleRate) judgeModelCall(ctx, model, e, input, completion);
    return;
  }
  void activeOnlineEvals(ctx)
    .then((evals) => {
      const e = evals.get(model);
      if (e && ctx.deps.random() < e.sampleRate) judgeModelCall(ctx, model, e, input, completion);
    })
    .catch((err) => ctx.deps.logger.warn("the project's online evaluations could not be read", { ...errorFields(err) }));
}

function judgeModelCall(
  ctx: Ctx,
  model: string,
  e: { criteria: string[]; alertBelow: number | null; alertMinJudged: number },
  input: JudgedInput,
  completion: ChatCompletion,
): void {
  judgeSample(
    ctx,
    { route: null, version: null, model },
    e.criteria,
    e.alertBelow === null ? null : { below: e.alertBelow, minJudged: e.alertMinJudged },
    input,
    completion,
  );
}

/**
 * Raises `evaluation.pass_rate_low` when the target's pass rate over the last hour is below the
 * threshold with at least `minJudged` calls judged: once per target per clock hour (the alert's
 * dedupe name), and checked at most once a minute per target on a process once there are enough.
 */
async function checkPassRate(ctx: Ctx, target: SampleTarget, alert: PassRateAlert): Promise<void> {
  const key = `${ctx.projectId}\u0000${target.route ?? ""}\u0000${target.route ? "" : target.model}`;
  const checks = ctx.deps.caches.passRateChecks;
  const now = ctx.deps.clock();
  if ((checks.get(key) ?? 0) > now.getTime()) return;
  const since = new Date(now.getTime() - HOUR_MS);
  const which = target.route ? eq(routeVerdicts.route, target.route) : and(isNull(routeVerdicts.route), eq(routeVerdicts.model, target.model ?? ""));
  const [row] = resultRows<{ judged: number; passed: number }>(
    await dbOf(ctx).execute(sql`
      select count(*)::int as judged, (count(*) filter (where passed))::int as passed from ${routeVerdicts}
      where ${and(eq(routeVerdicts.projectId, ctx.projectId), which)} and passed is not null and created_at > ${since.toISOString()}::timestamptz`),
  );
  const judged = Number(row?.judged ?? 0);
  if (judged < alert.minJudged) return;
  if (checks.size >= 10_000) checks.delete(checks.keys().next().value!);
  checks.set(key, now.getTime() + CHECK_EVERY_MS);
  const passRate = Number(row?.passed ?? 0) / judged;
  if (passRate >= alert.below) return;
  const hour = new Date(Math.floor(now.getTime() / HOUR_MS) * HOUR_MS).toISOString();
  const name = target.route ? `route:${target.route}` : `model:${target.model}`;
  await raiseAlert(ctx.deps, ctx.projectId, {
    event: "evaluation.pass_rate_low",
    dedupe: `pass-rate-low:${name}:${hour}`,
    data: {
      ...(target.route ? { route: target.route } : { model: target.model }),
      passRate,
      judged,
      alertBelow: alert.below,
      windowStart: since.toISOString(),
      windowEnd: now.toISOString(),
    },
  });
}
