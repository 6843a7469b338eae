import type { Ctx } from "../context";
import type { CallLog, CallRouting } from "../calls";
import type { ModelRoute } from "../projects";
import { resolveUpstream, type Upstream } from "../calls";
import { findRoute, routePlan } from "./find-route";
import { fallbackPlan, type RoutingPlan } from "./plan";
import { sampleModelCall } from "../online-evals";
import { sampleForJudging } from "./route-judging";
import { runPlan } from "./run-plan";
import type { ChatCompletion } from "../../providers";

/** How one gateway call reaches its upstream: straight to it, or through a plan. */
export type CallRouter = {
  /** The model string named one of the project's routes. */
  named: boolean;
  /** The upstream: the only one, or (once `send` returned) the one that answered; null before a planned call answered. */
  upstream(): Upstream | null;
  /** What the completion cache keys the answer on: the upstream, or a routed call's whole plan. */
  cacheTarget(): { target: string; upstreamModel: string };
  /** Makes the upstream call, through the plan's targets until one answers when there is a plan. */
  send<T>(fn: (up: Upstream, signal: AbortSignal) => Promise<T>): Promise<T>;
  /** A whole answer: a sample is judged off the answer's path, by its route's judge or its model's online evaluation (online-evals). */
  answered(input: { messages: unknown[]; tools?: unknown[] | null; tool_choice?: unknown }, completion: ChatCompletion): void;
};

/**
 * Decides how a call is made: a route (hone:<slug>), the call's fallbacks or a provider's key pool
 * make a plan (domain/routing, attempts on the call's log); anything else is one upstream,
 * resolved now (so a bad model string or a missing key fails before anything else).
 */
export async function routeCall(
  ctx: Ctx,
  call: CallLog,
  opts: { model: string; route: ModelRoute; fallbacks: string[]; tags: Record<string, unknown>; signal: AbortSignal },
): Promise<CallRouter> {
  const named = opts.route.provider === "hone" ? await findRoute(ctx, opts.route.slug) : null;
  let plan: RoutingPlan | null = null;
  let planKey = "";
  let up: Upstream | null = null;
  if (named) {
    plan = routePlan(ctx, named, opts.fallbacks, opts.tags);
    planKey = [`route:${named.id}@${named.revision}`, ...opts.fallbacks].join("\u0000");
  } else if (opts.fallbacks.length) {
    plan = fallbackPlan(ctx, opts.model, opts.fallbacks);
    planKey = [opts.model, ...opts.fallbacks].join("\u0000");
  } else {
    up = await resolveUpstream(ctx, opts.route);
    call.useUpstream(up, opts.model);
    // One model, whichever key of a pool calls it: admitted (allowed, reserved at its price) once.
    await call.admit(opts.model, up);
    // A provider with a key pool: the call is spread over the keys (a rate-limited one sheds its load).
    if (up.pool) plan = fallbackPlan(ctx, opts.model, []);
  }
  const routing: CallRouting | null = plan ? { attempts: [], route: plan.route, routeVersion: null } : null;
  if (routing) call.useRouting(routing);
  const fixed = up;
  // The model that answered: the one asked for, or the routing target that did.
  let servedModel = opts.model;
  return {
    named: named !== null,
    upstream: () => up,
    // A routed call is cached under its whole list of targets: any of them may have answered.
    cacheTarget: () => (planKey || !fixed ? { target: "routed", upstreamModel: planKey } : { target: fixed.target, upstreamModel: fixed.upstreamModel }),
    answered(input, completion) {
      if (named) {
        if (named.judge && routing) sampleForJudging(ctx, named, routing.routeVersion, servedModel, input, completion);
      } else sampleModelCall(ctx, servedModel, input, completion);
    },
    async send(fn) {
      if (!plan || !routing) return fn(up!, opts.signal);
      const routed = await runPlan(
        ctx,
        plan,
        opts.signal,
        routing.attempts,
        fn,
        (u, m) => {
          routing.reached = true;
          call.useUpstream(u, m);
        },
        call,
      );
      up = routed.up;
      servedModel = routed.target.model;
      routing.routeVersion = routed.target.version ?? null;
      return routed.value;
    },
  };
}
