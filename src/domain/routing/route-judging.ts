import type { BaseCtx, Ctx } from "../../context";
import { dbOf } from "../../context";
import { deleteOlderThan } from "../delete-older-than";
import { routeVerdicts } from "../../db/schema";
import { errorFields } from "../../logger";
import type { ChatCompletion } from "../../providers";
import { resolveCriteriaRefs } from "../criteria/judge-choices";
import { judgeOutput } from "../criteria/judge-output";
import type { Route } from "./schemas";

/** Sampled judgements in flight on this process at most: past it, a sample is skipped, never queued. */
const MAX_IN_FLIGHT = 64;

/**
 * After a call to a route answered: with the route's sample rate, the answer is judged by the
 * route's criteria off the answer's path (the client does not wait; the judge calls are Hone's own,
 * logged as internal), and the verdict is kept for its version's pass rate. A judgement that
 * cannot be made is kept as such (passed null, with the error); at most MAX_IN_FLIGHT at a time.
 */
export function sampleForJudging(
  ctx: Ctx,
  route: Route,
  version: string | null,
  input: { messages: unknown[]; tools?: unknown[] | null; tool_choice?: unknown },
  completion: ChatCompletion,
): void {
  const judge = route.judge;
  if (!judge || judge.sampleRate <= 0 || ctx.deps.random() >= judge.sampleRate) return;
  const output = completion.choices[0]?.message;
  const counter = ctx.deps.caches.routeJudging;
  if (!output || counter.inFlight >= MAX_IN_FLIGHT) return;
  counter.inFlight++;
  void (async () => {
    let passed: boolean | null = null;
    let error: string | null = null;
    try {
      const criteria = await resolveCriteriaRefs(ctx, judge.criteria);
      const verdicts = await Promise.all(
        criteria.map((c) =>
          judgeOutput(ctx, c, { messages: input.messages, tools: input.tools, tool_choice: input.tool_choice, output: output as Record<string, unknown> }),
        ),
      );
      passed = verdicts.every((v) => v.score >= 1);
    } catch (err) {
      error = err instanceof Error ? err.message : String(err);
    }
    await dbOf(ctx)
      .insert(routeVerdicts)
      .values({ id: ctx.deps.ids("routeVerdict"), projectId: ctx.projectId, route: route.slug, version, passed, error, createdAt: ctx.deps.clock() });
  })()
    .catch((err) => ctx.deps.logger.warn("a route's sampled judgement was not stored", { route: route.slug, ...errorFields(err) }))
    .finally(() => {
      counter.inFlight--;
    });
}

/** Deletes the judged samples older than `before` (HONE_LOG_RETENTION_DAYS: they sum up the logs), in batches. */
export function deleteExpiredRouteVerdicts(ctx: BaseCtx, input: { before: Date; batchSize?: number }): Promise<number> {
  return deleteOlderThan(ctx, routeVerdicts, input);
}
