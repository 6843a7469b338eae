import type { Ctx } from "../../context";
import { DomainError, parseInput, statusOf, toDomainError } from "../../errors";
import {
  ClientAborted,
  type ChatCompletion,
  type ChatCompletionChunk,
  type ChatUpstream,
  type UpstreamTarget,
  type Usage,
} from "../../providers";
import { cacheKey } from "../cache/cache-key";
import { judgeChoices, resolveCriteriaRefs } from "../criteria/judge-choices";
import type { ResolvedCriterion } from "../criteria/schemas";
import { readCacheEntry, writeCacheEntry } from "../cache/cache-store";
import { replayAsChunks } from "../cache/replay";
import { checkTagShapes, mergeMetadata, type NewRequestLog } from "../logs";
import { catalogueCost, findBaseModel, findModelRow } from "../models";
import { getCustomProvider, getProviderApiKey } from "../projects";
import { costOf } from "./cost";
import { createChunkMerger } from "./merge-chunks";
import { parseControls } from "./parse-controls";
import { resolveModel, type ModelRoute } from "./resolve-model";
import { CompiledChatCompletionRequest, type ChatCompletionRequest, type ControlHeaders, type Controls } from "./schemas";

export type CreateChatCompletionInput = {
  /** The JSON body as the client sent it (validated here). */
  body: unknown;
  headers: ControlHeaders;
  /** Aborted when the client goes away: the upstream call is aborted with it. */
  signal: AbortSignal;
};

/** How a call ended, as its log records it. */
type CallOutcome = {
  statusCode: number;
  errorMessage: string | null;
  respPayload: unknown;
  usage?: Usage | null;
  completionId?: string | null;
  cacheHit?: boolean;
};

/** HIT or MISS when a cache mode was requested, else null. */
export type CacheStatus = "HIT" | "MISS" | null;

export type ChatCompletionResult =
  | { kind: "completion"; completion: ChatCompletion; cache: CacheStatus }
  /** Iterating drives the upstream; stopping early (return) aborts it and logs what arrived. */
  | { kind: "stream"; chunks: AsyncGenerator<ChatCompletionChunk>; cache: CacheStatus };

/**
 * `target` names the upstream for the cache key (the provider, or the custom provider's or
 * fine-tune's id). A fine-tune is priced from its catalogue entry, and answers under its own name.
 */
type Upstream = {
  client: ChatUpstream;
  provider: string;
  target: string;
  upstreamModel: string;
  pricing?: { chatIn: number; chatOut: number };
  echoModel?: string;
};

/** A closed stream or request: the status recorded for calls the client abandoned. */
export const CLIENT_CLOSED_STATUS = 499;

async function upstreamFor(ctx: Ctx, route: ModelRoute): Promise<Upstream> {
  const { config, upstreams } = ctx.deps;
  switch (route.provider) {
    case "openai":
    case "gemini": {
      const apiKey = await getProviderApiKey(ctx, route.provider);
      const target: UpstreamTarget =
        route.provider === "openai"
          ? { kind: "openai", label: "OpenAI", baseUrl: config.openaiBaseUrl, apiKey }
          : { kind: "openai", label: "Gemini", baseUrl: config.geminiBaseUrl, apiKey };
      return { client: upstreams(target), provider: route.provider, target: route.provider, upstreamModel: route.upstreamModel };
    }
    case "anthropic": {
      const apiKey = await getProviderApiKey(ctx, "anthropic");
      return {
        client: upstreams({ kind: "anthropic", label: "Anthropic", baseUrl: config.anthropicBaseUrl, apiKey }),
        provider: "anthropic",
        target: "anthropic",
        upstreamModel: route.upstreamModel,
      };
    }
    case "custom": {
      const cp = await getCustomProvider(ctx, route.slug);
      const label = `custom provider ${cp.slug}`;
      const target: UpstreamTarget =
        cp.kind === "azure"
          ? { kind: "azure", label, baseUrl: cp.baseUrl, apiKey: cp.apiKey, apiVersion: cp.apiVersion ?? "", deployment: route.upstreamModel, tenantChosen: true }
          : { kind: "openai", label, baseUrl: cp.baseUrl, apiKey: cp.apiKey, tenantChosen: true };
      return { client: upstreams(target), provider: "custom", target: `custom:${cp.id}`, upstreamModel: route.upstreamModel };
    }
    case "hone": {
      const name = `${route.prefix}:${route.slug}`;
      const model = await findModelRow(ctx, route.slug);
      if (!model) throw new DomainError("NOT_FOUND", `The model \`${name}\` does not exist`);
      if (model.status !== "DEPLOYED" || !model.upstreamModelId) {
        throw new DomainError("CONFLICT", `The model \`${name}\` is not deployed yet (status ${model.status})${model.errorMessage ? `: ${model.errorMessage}` : ""}`);
      }
      const apiKey = await getProviderApiKey(ctx, model.backend);
      const target: UpstreamTarget =
        model.backend === "openai"
          ? { kind: "openai", label: "OpenAI", baseUrl: config.openaiBaseUrl, apiKey }
          : { kind: "openai", label: "Together", baseUrl: config.togetherBaseUrl, apiKey };
      return {
        client: upstreams(target),
        provider: "hone",
        target: `hone:${model.id}`,
        upstreamModel: model.upstreamModelId,
        pricing: findBaseModel(model.baseModel)?.pricing,
        echoModel: name,
      };
    }
  }
}

/** The body sent upstream: Hone's own member removed, members the upstream would reject dropped. */
function upstreamBody(request: ChatCompletionRequest, up: Upstream, stream: boolean): Record<string, unknown> {
  const { hone: _controls, ...rest } = request;
  const body: Record<string, unknown> = { ...rest, model: up.upstreamModel };
  // OpenAI accepts metadata only for stored completions; Hone keeps metadata on its own log.
  if (body.store !== true || up.provider === "gemini") delete body.metadata;
  if (up.provider === "gemini") delete body.store;
  if (!stream) delete body.stream_options;
  return body;
}

export async function createChatCompletion(ctx: Ctx, input: CreateChatCompletionInput): Promise<ChatCompletionResult> {
  const requestedAt = ctx.deps.clock();
  const started = performance.now();
  checkBodyTags(input.body);
  const request = parseInput(CompiledChatCompletionRequest, input.body);
  const controls = parseControls(input.headers, request.hone);
  const stream = request.stream === true;

  let provider: string | null = null;
  let upstreamModel: string | null = null;
  let pricing: { chatIn: number; chatOut: number } | undefined;
  const priceOf = (usage: Usage | null | undefined): number | null => {
    if (!usage) return null;
    if (pricing) return catalogueCost(pricing, usage);
    return provider && upstreamModel ? costOf(provider, upstreamModel, usage) : null;
  };
  // OpenPipe's rule: calls to base models are logged unless the client says no; calls to the
  // project's own fine-tunes only when it asks (or stores the completion), unless the operator
  // logs them all. Known once the model string is resolved; a string that does not resolve is
  // not a fine-tune.
  let fineTune = false;
  const shouldLog = () => {
    if (controls.logRequest !== undefined) return controls.logRequest;
    if (!fineTune || request.store === true) return true;
    return ctx.deps.config.logFinetuneCalls === "always";
  };
  const log = (outcome: CallOutcome) => {
    if (!shouldLog()) return;
    ctx.deps.logWriter.enqueue(
      logRecord(ctx, controls, {
        request,
        rawBody: input.body,
        requestedAt,
        durationMs: Math.round(performance.now() - started),
        provider,
        // A cache hit costs nothing; it keeps the usage of the response it replays.
        cost: outcome.cacheHit ? 0 : priceOf(outcome.usage),
        ...outcome,
      }),
    );
  };
  const logFailure = (err: unknown): DomainError => {
    if (err instanceof ClientAborted) {
      log({ statusCode: CLIENT_CLOSED_STATUS, errorMessage: CLIENT_CLOSED_MESSAGE, respPayload: null });
      return new DomainError("VALIDATION", CLIENT_CLOSED_MESSAGE);
    }
    const e = asDomainError(ctx, err);
    log({ statusCode: statusOf(e), errorMessage: e.message, respPayload: e.details.upstreamBody ?? { error: { message: e.message, code: e.code } } });
    return e;
  };

  let up: Upstream;
  let criteria: ResolvedCriterion[] = [];
  try {
    const route = resolveModel(request.model, ctx.deps.config.modelPrefixes);
    fineTune = route.provider === "hone";
    if (controls.criteria.length) {
      if (stream) {
        throw new DomainError("VALIDATION", "Criteria (op-criteria) cannot be used with stream: true: every choice must be complete to be judged. Send the request without streaming.", {
          issues: [{ message: "op-criteria requires stream: false", path: ["stream"] }],
        });
      }
      criteria = await resolveCriteriaRefs(ctx, controls.criteria);
    }
    up = await upstreamFor(ctx, route);
  } catch (err) {
    throw logFailure(err);
  }
  const judge = async (completion: ChatCompletion) =>
    criteria.length ? judgeChoices(ctx, criteria, { messages: request.messages, tools: request.tools, tool_choice: request.tool_choice }, completion) : completion;
  provider = up.provider;
  upstreamModel = up.upstreamModel;
  pricing = up.pricing;
  // A fine-tune answers as hone:<slug>, not as the backend's model id.
  const echo = <T extends { model: string }>(x: T): T => (up.echoModel ? { ...x, model: up.echoModel } : x);
  const body = upstreamBody(request, up, stream);
  const clientWantsUsage = request.stream_options?.include_usage === true;
  // Hone asks every upstream stream for usage; a client that did not ask never sees it.
  const asReceived = (merged: ChatCompletion | null): ChatCompletion | null => {
    if (clientWantsUsage || !merged || !("usage" in merged)) return merged;
    const { usage: _usage, ...rest } = merged;
    return rest as ChatCompletion;
  };

  const mode = controls.cache;
  const key = mode ? cacheKey({ projectId: ctx.projectId, target: up.target, upstreamModel: up.upstreamModel, body: request }) : null;
  const cacheStatus: CacheStatus = mode ? "MISS" : null;
  if (key && (mode === "readWrite" || mode === "readOnly")) {
    const hit = await readCacheEntry(ctx, key);
    if (hit) {
      const completion = stream ? hit.response : await judge(hit.response);
      log({ statusCode: 200, errorMessage: null, respPayload: stream ? asReceived(completion) : completion, usage: hit.response.usage, completionId: completion.id, cacheHit: true });
      if (!stream) return { kind: "completion", completion, cache: "HIT" };
      return { kind: "stream", chunks: replayAsChunks(completion, clientWantsUsage), cache: "HIT" };
    }
  }
  const store = async (completion: ChatCompletion | null) => {
    if (!key || (mode !== "readWrite" && mode !== "writeOnly") || !isComplete(completion)) return;
    try {
      await writeCacheEntry(ctx, key, completion);
    } catch (err) {
      // The caller already has its answer; a cache that cannot be written only costs a miss later.
      ctx.deps.logger.warn("cache write failed", { requestId: ctx.requestId, error: err instanceof Error ? err.message : String(err) });
    }
  };

  if (!stream) {
    try {
      const raw = echo(await up.client.complete(body, { signal: input.signal }));
      await store(raw);
      const completion = await judge(raw);
      log({ statusCode: 200, errorMessage: null, respPayload: completion, usage: raw.usage, completionId: completion.id });
      return { kind: "completion", completion, cache: cacheStatus };
    } catch (err) {
      throw logFailure(err);
    }
  }

  let upstream: AsyncIterable<ChatCompletionChunk>;
  try {
    upstream = await up.client.stream(body, { signal: input.signal });
  } catch (err) {
    throw logFailure(err);
  }

  async function* relay(): AsyncGenerator<ChatCompletionChunk> {
    const merger = createChunkMerger();
    let outcome: { statusCode: number; errorMessage: string | null } = {
      statusCode: CLIENT_CLOSED_STATUS,
      errorMessage: CLIENT_CLOSED_MESSAGE,
    };
    try {
      for await (const upstreamChunk of upstream) {
        const chunk = echo(upstreamChunk);
        merger.add(chunk);
        // Hone always asks upstream for usage (to log and price streams); clients that did not
        // ask for it do not get the extra usage-only chunk.
        if ((chunk.choices?.length ?? 0) === 0 && !clientWantsUsage) continue;
        yield chunk;
      }
      outcome = { statusCode: 200, errorMessage: null };
      // Stored before the stream closes, so a request sent right after the end can hit.
      if (merger.finished) await store(merger.result());
    } catch (err) {
      if (!(err instanceof ClientAborted)) {
        const e = asDomainError(ctx, err);
        outcome = { statusCode: statusOf(e), errorMessage: e.message };
        throw e;
      }
    } finally {
      const merged = merger.result();
      // The log holds what the client received; the usage still fills the token and cost columns.
      log({ ...outcome, respPayload: asReceived(merged), usage: merger.usage, completionId: merged?.id ?? null });
    }
  }
  return { kind: "stream", chunks: relay(), cache: cacheStatus };
}

/** Tags in the body (`metadata`, `hone.tags`) must be flat before the schema says anything else. */
function checkBodyTags(body: unknown): void {
  if (!body || typeof body !== "object") return;
  const b = body as { metadata?: unknown; hone?: unknown };
  checkTagShapes(b.metadata, ["metadata"]);
  if (b.hone && typeof b.hone === "object") checkTagShapes((b.hone as { tags?: unknown }).tags, ["hone", "tags"]);
}

/** Only whole, successful answers are cached: every choice finished. */
function isComplete(c: ChatCompletion | null): c is ChatCompletion {
  return !!c && Array.isArray(c.choices) && c.choices.length > 0 && c.choices.every((ch) => ch.finish_reason != null);
}

const CLIENT_CLOSED_MESSAGE = "The client closed the connection before the response was complete";

/** A DomainError for the client; a bug is logged in full here, since the client only sees "Internal server error". */
function asDomainError(ctx: Ctx, err: unknown): DomainError {
  const e = toDomainError(err);
  if (e.code === "INTERNAL" && !(err instanceof DomainError)) {
    ctx.deps.logger.error("chat completion failed", { requestId: ctx.requestId, error: err instanceof Error ? err.stack : String(err) });
  }
  return e;
}

function logRecord(
  ctx: Ctx,
  controls: Controls,
  c: CallOutcome & {
    request: ChatCompletionRequest;
    rawBody: unknown;
    requestedAt: Date;
    durationMs: number;
    provider: string | null;
    cost: number | null;
  },
): NewRequestLog {
  return {
    id: ctx.deps.ids("log"),
    projectId: ctx.projectId,
    source: "gateway",
    provider: c.provider,
    model: c.request.model,
    completionId: c.completionId ?? null,
    statusCode: c.statusCode,
    errorMessage: c.errorMessage,
    requestedAt: c.requestedAt,
    receivedAt: ctx.deps.clock(),
    durationMs: c.durationMs,
    inputTokens: c.usage?.prompt_tokens ?? null,
    outputTokens: c.usage?.completion_tokens ?? null,
    costUsd: c.cost,
    cacheHit: c.cacheHit ?? false,
    metadata: mergeMetadata(c.request.metadata, controls.tags),
    reqPayload: c.rawBody,
    respPayload: c.respPayload,
  };
}
