import type { Ctx } from "../context";
import { DomainError, statusOf, toDomainError } from "../../core/errors";
import { ClientAborted, type Usage } from "../../providers";
import { checkedUsage, tokenClasses, type LogApi, type LogAttempt, mergeTags, type NewRequestLog } from "../logs";
import { type LogCost, logCost, ratesFor, projectOverrides, withOverride } from "../pricing";
import { reserveCall, type Reservation } from "../limits";
import { requireModelAllowed, canonicalModel } from "../projects";
import type { Upstream } from "./resolve-upstream";
import { logRefusal } from "./refusals";
import { ANALYZER_WARNING, analyze, analyzeLog, hasAnalyzer, type Masking, maskingFor, sensitiveIn } from "../masking";
import { createMasker, type Masker, type Span } from "../../lib/masking";
import { traceCall } from "./call-span";

/** How a call ended, as its log records it. */
type CallOutcome = {
  statusCode: number;
  errorMessage: string | null;
  respPayload: unknown;
  usage?: Usage | null;
  completionId?: string | null;
  cacheHit?: boolean;
  /** Something the log could not keep whole (an answer larger than Hone holds). */
  warning?: string | null;
  /** For another protocol (Messages, Responses): the answer as the client received it. */
  respPayloadOriginal?: unknown;
};

/**
 * A call that came in by another protocol than chat completions: the log keeps the chat form as its
 * payloads (datasets, previews and search read those) and the client's own form beside them.
 */
export type ProtocolCall = {
  api: LogApi;
  /** The request as the client sent it. */
  request: unknown;
  /** The answer as the client received it, from the chat form logged (when the outcome does not carry it). */
  response?: (chat: unknown) => unknown;
  /** What the translation left out (a hosted tool the upstream cannot run). */
  warning?: string | null;
};

const NO_USAGE: Usage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };

/** A closed stream or request: the status recorded for calls the client abandoned. */
export const CLIENT_CLOSED_STATUS = 499;
export const CLIENT_CLOSED_MESSAGE = "The client closed the connection before the response was complete";

/** A DomainError for the client; a bug is logged in full here, since the client only sees "Internal server error". */
export function asDomainError(ctx: Ctx, err: unknown): DomainError {
  const e = toDomainError(err);
  if (e.code === "INTERNAL" && !(err instanceof DomainError)) {
    ctx.deps.logger.error("chat completion failed", { requestId: ctx.requestId, error: err instanceof Error ? err.stack : String(err) });
  }
  return e;
}

/** A routed call's attempts (filled in as they happen), its route and the version that answered. */
export type CallRouting = {
  attempts: LogAttempt[];
  route: string | null;
  routeVersion: string | null;
  /** Whether an upstream was tried (a refusal after one is logged with the attempts). */
  reached?: boolean;
};

export type CallLog = {
  /** The upstream, once resolved: it prices the call (with the override of `model`, the target's model string) and names its provider. */
  useUpstream(up: Upstream, model?: string): void;
  /** Why the acting key may not call this target (null: it may). A routed call skips such a target. */
  refusal(model: string): DomainError | null;
  /**
   * Before a target is called: the key may call it (else FORBIDDEN), and the limits that apply are
   * reserved at its price (else RATE_LIMITED). A call that moves on to another target gives back
   * what it reserved and reserves again at that target's price.
   */
  admit(model: string, up: Upstream): Promise<void>;
  /** Before an answer from the cache: the limits count the call (at no cost) when no target has reserved it yet. */
  admitCached(): Promise<void>;
  /** A call with fallbacks or a route: the log keeps its attempts (read when the log is written). */
  useRouting(routing: CallRouting): void;
  /** The tokens a fine-tune's pruning rules removed from the request sent upstream (the last attempt's). */
  usePruned(tokens: number): void;
  log(outcome: CallOutcome): void;
  /**
   * How the call is masked (domain/masking), and under mask_upstream the masker that made the
   * request's placeholders: it restores the answer for the client, and the log is masked with it
   * (so the stored request and answer share one set of placeholders).
   */
  masking: Masking;
  masker: Masker | null;
  /** Logs a failed call and turns the error into what the caller answers with. */
  failure(err: unknown): DomainError;
};

/**
 * The log of one model call, gateway or internal: started when the call is, priced from the
 * upstream it reaches, written off the request path by the log writer when `shouldLog()` says so.
 */
export async function createCallLog(
  ctx: Ctx,
  call: {
    /** The parsed request: its model names the log's model, its metadata joins the tags. */
    request: { model: string; metadata?: Record<string, unknown> | null };
    rawBody: unknown;
    tags: Record<string, unknown>;
    shouldLog: () => boolean;
    /** The protocol the client spoke (default chat). */
    api?: LogApi;
    /** A call translated from another protocol (Messages, Responses). */
    protocol?: ProtocolCall;
  },
): Promise<CallLog> {
  // The project's price overrides, as this process last read them (usually no read at all).
  const overrides = await projectOverrides(ctx);
  const requestedAt = ctx.deps.clock();
  const prefixes = ctx.deps.config.modelPrefixes;
  const model = canonicalModel(call.request.model, prefixes);
  const tags = mergeTags(call.request.metadata, call.tags);
  const masking = await maskingFor(ctx, { keyId: ctx.actor.type === "apiKey" ? ctx.actor.keyId : null, models: [call.request.model, model] });
  const recognizers = masking.recognizers;
  // mask_upstream: the external analyzer (if any) reads the request before it is sent, its spans
  // shared by the call's masker and its log.
  const known = new Map<string, readonly Span[]>();
  let analyzerWarning: string | null = null;
  if (masking.mode === "mask_upstream" && hasAnalyzer(ctx)) {
    const a = await analyze(ctx, masking, [call.protocol?.request ?? call.rawBody]);
    for (const [t, spans] of a.spans) known.set(t, spans);
    if (a.failure) analyzerWarning = ANALYZER_WARNING[a.failure];
  }
  const masker = masking.mode === "mask_upstream" ? createMasker({ recognizers, kinds: masking.kinds, known }) : null;
  const mask: NewRequestLog["mask"] =
    masking.mode === "off" ? null : { mode: masking.mode, kinds: masking.kinds, recognizers, known, analyzer: analyzerWarning, ...(masker ? { masker } : {}) };
  // A gateway call (not Hone's own) is one its key may make, within the limits that apply to it:
  // the name it calls is checked here; each target it reaches (a route's, a fallback, a pool's key)
  // is checked, and reserved at its own price, before it is called (admit), and settled when it ends.
  /** A call refused before any upstream: logged with its reason (payload by the call's own rule), no attempt, no cost. */
  const refused = (e: DomainError) => {
    const keep = call.shouldLog();
    logRefusal(ctx, {
      api: call.protocol?.api ?? call.api ?? "chat",
      model,
      reqPayload: keep ? call.rawBody : null,
      reqPayloadOriginal: keep ? call.protocol?.request : undefined,
      tags,
      error: e,
      mask,
    });
  };
  if (!ctx.internal) {
    try {
      requireModelAllowed(ctx.actor, call.request.model, model);
    } catch (err) {
      if (err instanceof DomainError) refused(err);
      throw err;
    }
  }
  // block: a call holding a sensitive value is refused before anything is sent, its text not kept.
  if (masking.mode === "block") {
    const counts = await sensitiveIn(ctx, masking, call.protocol?.request ?? call.rawBody);
    if (counts) {
      const found = Object.entries(counts)
        .map(([kind, n]) => `${kind} (${n})`)
        .join(", ");
      const message = `This call holds sensitive data that the project's masking rule blocks: ${found}. Nothing was sent to the provider; remove it and send the call again.`;
      const e = new DomainError("VALIDATION", message, { issues: [{ message, path: ["messages"] }] });
      e.details.masking = true;
      e.details.maskedKinds = Object.keys(counts);
      logRefusal(ctx, { api: call.protocol?.api ?? call.api ?? "chat", model, reqPayload: null, tags, error: e, mask });
      throw e;
    }
  }
  /** Runs a check before an upstream is called: what it refuses is marked as the call's admission. */
  const admission = async (check: () => Promise<void>) => {
    try {
      await check();
    } catch (err) {
      if (err instanceof DomainError) err.details.admission = true;
      throw err;
    }
  };
  let reservation: Reservation | null = null;
  /** The target the reservation was made for ("" for the cache), or null before any. */
  let reservedFor: string | null = null;
  const reserve = async (target: string, u: Upstream | null) => {
    if (reservedFor === target) return;
    reservation?.release();
    reservation = null;
    reservedFor = null;
    reservation = await reserveCall(ctx, { model: target || null, upstream: u, tags, request: call.request });
    reservedFor = target;
  };
  /** The model whose price override prices the call: the target that answered. */
  let pricedModel = model;
  const started = performance.now();
  let up: Upstream | null = null;
  let routing: CallRouting | null = null;
  let prunedTokens: number | null = null;
  const priceOf = (usage: Usage | null | undefined, statusCode: number, cacheHit: boolean, durationMs: number): LogCost => {
    const table = up ? ratesFor(up.provider, up.upstreamModel, requestedAt, up.pricing ? { ...up.pricing, name: up.target } : null) : null;
    const rates = withOverride(overrides, pricedModel, requestedAt, table);
    const cost = logCost(usage, rates, { answered: statusCode >= 200 && statusCode < 300, cacheHit, durationMs });
    if (cost.costFlag) ctx.deps.metrics.unpriced(cost.costFlag);
    return cost;
  };
  const log = (o: CallOutcome) => {
    if (!o.cacheHit && up) ctx.deps.metrics.upstream(up.provider, (performance.now() - started) / 1000, o.statusCode);
    // An upstream (a custom one above all) may claim any numbers: impossible ones are not kept.
    const { usage, warning } = checkedUsage(o.usage);
    const durationMs = Math.round(performance.now() - started);
    const answered = o.statusCode >= 200 && o.statusCode < 300;
    // Priced once, for the limits and the log (a cache hit costs nothing).
    let cost: LogCost | null = null;
    const costOf = () => (cost ??= priceOf(usage, o.statusCode, o.cacheHit ?? false, durationMs));
    if (reservation) {
      // A cache hit used nothing upstream; a failure gives back what it reserved.
      reservation.settle({ answered, usage: o.cacheHit ? NO_USAGE : usage, costUsd: costOf().costUsd });
      reservation = null;
    }
    if (!call.shouldLog()) return;
    const row: NewRequestLog = {
      // Dated when the call came in: its place in the list, time filters and usage.
      id: ctx.deps.ids("log", requestedAt),
      projectId: ctx.projectId,
      // Hone's own calls (a judge, an evaluation, the playground) are kept apart from the application's.
      source: ctx.internal ? "internal" : "gateway",
      internalKind: ctx.internal ?? null,
      api: call.api ?? "chat",
      provider: up?.provider ?? null,
      // One spelling per model (`gpt-4o-mini` is `openai:gpt-4o-mini`), so filters and usage count it once.
      model,
      completionId: o.completionId ?? null,
      statusCode: o.statusCode,
      errorMessage: o.errorMessage,
      requestedAt,
      receivedAt: ctx.deps.clock(),
      durationMs,
      ...tokenClasses(usage),
      // A cache hit costs nothing; it keeps the usage of the response it replays.
      ...costOf(),
      warning: [o.warning, warning].filter(Boolean).join("; ") || null,
      cacheHit: o.cacheHit ?? false,
      tags,
      reqPayload: call.rawBody,
      respPayload: o.respPayload,
    };
    if (prunedTokens) row.prunedTokens = prunedTokens;

    if (mask) row.mask = { ...mask };
    if (routing) {
      row.attempts = [...routing.attempts];
      row.route = routing.route;
      row.routeVersion = routing.routeVersion;
    }
    const p = call.protocol;
    if (p) {
      row.api = p.api;
      row.reqPayloadOriginal = p.request;
      if (p.warning) row.warning = [row.warning, p.warning].filter(Boolean).join("; ");
      row.respPayloadOriginal =
        o.respPayloadOriginal !== undefined ? o.respPayloadOriginal : o.statusCode < 400 && p.response ? p.response(o.respPayload) : o.respPayload;
    }
    if (row.mask) {
      // The external analyzer (if any) reads what is stored, off the client's way (the row waits
      // for it); under mask_upstream it has read the request already.
      const answer = [row.respPayload, row.respPayloadOriginal, row.errorMessage];
      analyzeLog(ctx, row.mask, masking.mode === "mask_upstream" ? answer : [row.reqPayload, row.reqPayloadOriginal, ...answer]);
    }
    // In the caller's trace: the call is a span of its own, a child of the caller's (exported when asked).
    if (ctx.trace || ctx.deps.config.otelExport) traceCall(ctx, row);
    ctx.deps.logWriter.enqueue(row);
  };
  return {
    useUpstream(u, target) {
      up = u;
      if (target !== undefined) pricedModel = canonicalModel(target, prefixes);
    },
    refusal(target) {
      if (ctx.internal) return null;
      try {
        requireModelAllowed(ctx.actor, target, canonicalModel(target, prefixes));
        return null;
      } catch (err) {
        if (err instanceof DomainError) return err;
        throw err;
      }
    },
    async admit(target, u) {
      if (ctx.internal) return;
      const canonical = canonicalModel(target, prefixes);
      await admission(async () => {
        requireModelAllowed(ctx.actor, target, canonical);
        await reserve(canonical, u);
      });
    },
    async admitCached() {
      if (ctx.internal || reservedFor !== null) return;
      await admission(() => reserve("", null));
    },
    useRouting(r) {
      routing = r;
    },
    usePruned(tokens) {
      prunedTokens = tokens;
    },
    log,
    masking,
    masker,
    failure(err) {
      if (err instanceof ClientAborted) {
        log({ statusCode: CLIENT_CLOSED_STATUS, errorMessage: CLIENT_CLOSED_MESSAGE, respPayload: null });
        return new DomainError("VALIDATION", CLIENT_CLOSED_MESSAGE);
      }
      const e = asDomainError(ctx, err);
      // Refused before any upstream was tried (a limit, a model the key may not call): logged as a
      // refusal, bounded per key and minute (domain/calls/refusals.ts), and counted in /metrics.
      if (e.details.admission === true && !routing?.reached) {
        refused(e);
        return e;
      }
      log({ statusCode: statusOf(e), errorMessage: e.message, respPayload: e.details.upstreamBody ?? { error: { message: e.message, code: e.code } } });
      return e;
    },
  };
}
