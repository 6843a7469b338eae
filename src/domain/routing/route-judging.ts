import type { BaseCtx, Ctx } from "../context";
import { deleteOlderThan } from "../delete-older-than";
import { routeVerdicts } from "../../db/schema";
import type { ChatCompletion } from "../../providers";
import { canonicalModel } from "../projects";
import { type JudgedInput, judgeSample } from "../online-evals";
import type { Route } from "./schemas";

/**
 * After a call to a route answered: with the route's sample rate, the answer is judged by the
 * route's criteria off the answer's path (online-evals/judge-sample.ts), and the verdict kept for
 * its version's pass rate (and the answering model's).
 */
export function sampleForJudging(
  ctx: Ctx,
  route: Route,
  version: string | null,
  servedModel: string | null,
  input: JudgedInput,
  completion: ChatCompletion,
): void {
  const judge = route.judge;
  if (!judge || judge.sampleRate <= 0 || ctx.deps.random() >= judge.sampleRate) return;
  const model = servedModel ? canonicalModel(servedModel, ctx.deps.config.modelPrefixes) : null;
  const alert = judge.alertBelow != null ? { below: judge.alertBelow, minJudged: judge.alertMinJudged ?? 20 } : null;
  judgeSample(ctx, { route: route.slug, version, model }, judge.criteria, alert, input, completion);
}

/** Deletes the judged samples older than `before` (HONE_LOG_RETENTION_DAYS: they sum up the logs), in batches. */
export function deleteExpiredRouteVerdicts(ctx: BaseCtx, input: { before: Date; batchSize?: number }): Promise<number> {
  return deleteOlderThan(ctx, routeVerdicts, input);
}
