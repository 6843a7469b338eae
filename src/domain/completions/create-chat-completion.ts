import type { Ctx } from "../context";
import { createChunkRestorer, restoreCompletion } from "./restore-chunks";
import { DomainError, parseInput, statusOf, toDomainError } from "../../core/errors";
import { ClientAborted, type ChatCompletion, type ChatCompletionChunk, isPassThrough, type PassThroughOutcome, type Usage } from "../../providers";
import { cacheKey, readCacheEntry, writeCacheEntry, replayAsChunks } from "../cache";
import { judgeChoices, resolveCriteriaRefs } from "../criteria";
import type { ResolvedCriterion } from "../criteria";
import { mergeTags, truncatedPayload } from "../logs";
import { type CallRouter, routeCall } from "../routing";
import {
  asDomainError,
  CLIENT_CLOSED_MESSAGE,
  CLIENT_CLOSED_STATUS,
  type CallLog,
  createCallLog,
  type ProtocolCall,
  createChunkMerger,
  answeredAs,
  upstreamBody,
  CompiledChatCompletionRequest,
  type ControlHeaders,
} from "../calls";
import { checkBodyTags, parseControls } from "./parse-controls";
import { requireKeyMayCall, resolveModel } from "../projects";

export { CLIENT_CLOSED_STATUS };

type CreateChatCompletionInput = {
  /** The JSON body as the client sent it (validated here). */
  body: unknown;
  headers: ControlHeaders;
  /** Aborted when the client goes away: the upstream call is aborted with it. */
  signal: AbortSignal;
  /** Set when the client spoke another protocol, translated to this body (Messages, Responses). */
  protocol?: ProtocolCall;
};

/** HIT or MISS when a cache mode was requested, else null. */
type CacheStatus = "HIT" | "MISS" | null;

type ChatCompletionResult =
  /**
   * `restore` (mask_upstream): puts the masked values back in what a caller builds from the logged
   * answer (the completion here is restored already).
   */
  | { kind: "completion"; completion: ChatCompletion; cache: CacheStatus; restore?: <T>(v: T) => T }
  /** An answer larger than Hone holds (HONE_MAX_LOGGED_PAYLOAD_BYTES): its bytes, passed on as they arrive. */
  | { kind: "pass-through"; body: ReadableStream<Uint8Array>; cache: CacheStatus }
  /** Iterating drives the upstream; stopping early (return) aborts it and logs what arrived. */
  | { kind: "stream"; chunks: AsyncGenerator<ChatCompletionChunk>; cache: CacheStatus };

/**
 * The gateway verb: a client's chat completion, with request controls, caching and best-of-N
 * judging on top of one upstream call (resolve-upstream.ts), logged as OpenPipe would.
 */
export async function createChatCompletion(ctx: Ctx, input: CreateChatCompletionInput): Promise<ChatCompletionResult> {
  checkBodyTags(input.body);
  const request = parseInput(CompiledChatCompletionRequest, input.body);
  const controls = parseControls(input.headers, request.hone);
  const stream = request.stream === true;

  // OpenPipe's rule: calls to base models are logged unless the client says no; calls to the
  // project's own fine-tunes only when it asks (or stores the completion), unless the operator
  // logs them all. Known once the model string is resolved; a string that does not resolve is
  // not a fine-tune.
  let fineTune = false;
  const call = await createCallLog(ctx, {
    request,
    rawBody: input.body,
    tags: controls.tags,
    protocol: input.protocol,
    shouldLog: () => {
      if (controls.logRequest !== undefined) return controls.logRequest;
      if (!fineTune || request.store === true) return true;
      return ctx.deps.config.logFinetuneCalls === "always";
    },
  });
  const log = call.log;
  const logFailure = call.failure;
  // mask_upstream (domain/masking): the provider, and any judge, gets placeholders for the
  // sensitive values; the client gets its answer with them put back.
  const masker = call.masker;
  const maskedMessages = masker ? masker.maskValue(request.messages) : request.messages;
  // The request itself when nothing was masked (its JSON text is reused upstream).
  const sent = maskedMessages === request.messages ? request : { ...request, messages: maskedMessages };

  // A route (hone:<slug>), the call's fallbacks or a key pool route it (domain/routing).
  let router: CallRouter;
  let criteria: ResolvedCriterion[] = [];
  try {
    const route = resolveModel(request.model, ctx.deps.config.modelPrefixes);
    fineTune = route.provider === "hone";
    if (controls.criteria.length) {
      if (stream) {
        throw new DomainError(
          "VALIDATION",
          "Criteria (op-criteria) cannot be used with stream: true: every choice must be complete to be judged. Send the request without streaming.",
          {
            issues: [{ message: "op-criteria requires stream: false", path: ["stream"] }],
          },
        );
      }
      criteria = await resolveCriteriaRefs(ctx, controls.criteria);
      // The judges are called on this key's behalf: each judge model must be one it may call.
      requireKeyMayCall(
        ctx,
        criteria.map((c) => c.judgeModel),
      );
    }
    const tags = mergeTags(request.metadata, controls.tags);
    router = await routeCall(ctx, call, { model: request.model, route, fallbacks: controls.fallbacks, tags, signal: input.signal });
    // Calls to a route are logged as any base model's are (its figures come from its logs).
    fineTune = route.provider === "hone" && !router.named;
  } catch (err) {
    throw logFailure(err);
  }
  const callUpstream = router.send;
  const judge = async (completion: ChatCompletion) =>
    criteria.length ? judgeChoices(ctx, criteria, { messages: sent.messages, tools: request.tools, tool_choice: request.tool_choice }, completion) : completion;
  const echo = <T extends { model: string }>(x: T): T => answeredAs(router.upstream()!, x);
  const clientWantsUsage = request.stream_options?.include_usage === true;
  // Hone asks every upstream stream for usage; a client that did not ask never sees it.
  const asReceived = (merged: ChatCompletion | null): ChatCompletion | null => {
    if (clientWantsUsage || !merged || !("usage" in merged)) return merged;
    const { usage: _usage, ...rest } = merged;
    return rest as ChatCompletion;
  };

  // Masked calls are not cached: an entry would hold the answer with its values as the client gets it.
  const mode = call.masking.mode === "off" ? controls.cache : undefined;
  const key = mode ? cacheKey({ projectId: ctx.projectId, ...router.cacheTarget(), body: request }) : null;
  const cacheStatus: CacheStatus = mode ? "MISS" : null;
  if (key && (mode === "readWrite" || mode === "readOnly")) {
    const hit = await readCacheEntry(ctx, key);
    ctx.deps.metrics.cacheLookup(hit ? "hit" : "miss");
    if (hit) {
      try {
        await call.admitCached();
      } catch (err) {
        throw logFailure(err);
      }
      const completion = stream ? hit.response : await judge(hit.response);
      log({
        statusCode: 200,
        errorMessage: null,
        respPayload: stream ? asReceived(completion) : completion,
        usage: hit.response.usage,
        completionId: completion.id,
        cacheHit: true,
      });
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
      const answer = await callUpstream((u, signal) => u.client.completeOrPass(upstreamBody(sent, u, false, call.usePruned), { signal }));
      if (isPassThrough(answer)) {
        if (criteria.length || masker) {
          await answer.body.cancel();
          throw new DomainError(
            "UPSTREAM_ERROR",
            masker
              ? `The answer is larger than HONE_MAX_LOGGED_PAYLOAD_BYTES (${ctx.deps.config.maxLoggedPayloadBytes} bytes): the masked values cannot be put back in it; ask for less`
              : `The answer is larger than HONE_MAX_LOGGED_PAYLOAD_BYTES (${ctx.deps.config.maxLoggedPayloadBytes} bytes): criteria cannot judge it; ask for less, or call without op-criteria`,
            { upstreamStatus: 502 },
          );
        }
        // Passed on as it arrives, neither judged nor cached; logged (spooled) once the upstream
        // has ended, before the last bytes go to the client; or once it broke or the client left.
        let logged = false;
        const logPassed = (o: PassThroughOutcome) => {
          if (logged) return;
          logged = true;
          log(passedOutcome(o, ctx.deps.config.maxLoggedPayloadBytes));
        };
        answer.beforeEnd = logPassed;
        void answer.done.then(logPassed);
        return { kind: "pass-through", body: answer.body, cache: cacheStatus };
      }
      const raw = echo(answer);
      router.answered(sent, raw);
      await store(raw);
      const completion = await judge(raw);
      log({ statusCode: 200, errorMessage: null, respPayload: completion, usage: raw.usage, completionId: completion.id });
      if (!masker) return { kind: "completion", completion, cache: cacheStatus };
      return { kind: "completion", completion: restoreCompletion(masker, completion), cache: cacheStatus, restore: (v) => masker.restoreValue(v) };
    } catch (err) {
      throw logFailure(err);
    }
  }

  let upstream: AsyncIterable<ChatCompletionChunk>;
  try {
    upstream = await callUpstream((u, signal) => u.client.stream(upstreamBody(sent, u, true, call.usePruned), { signal }));
  } catch (err) {
    throw logFailure(err);
  }

  async function* relay(): AsyncGenerator<ChatCompletionChunk> {
    const max = ctx.deps.config.maxLoggedPayloadBytes;
    const merger = createChunkMerger(max);
    // The log keeps the chunks as the provider sent them; the client gets them restored.
    const restorer = masker ? createChunkRestorer(masker) : null;
    let last: ChatCompletionChunk | null = null;
    let outcome: { statusCode: number; errorMessage: string | null } = {
      statusCode: CLIENT_CLOSED_STATUS,
      errorMessage: CLIENT_CLOSED_MESSAGE,
    };
    try {
      for await (const upstreamChunk of upstream) {
        const given = echo(upstreamChunk);
        merger.add(given);
        last = given;
        const chunk = restorer ? restorer.restore(given) : given;
        if (clientWantsUsage) {
          yield chunk;
          continue;
        }
        // Hone always asks upstream for usage (to log and price streams). A client that did not
        // ask gets the stream it would have got: no usage-only chunk and no `usage: null` on the
        // others. Other chunks without choices (Azure's prompt_filter_results) pass as they are.
        if (!("usage" in chunk)) yield chunk;
        else if (chunk.usage == null || (chunk.choices?.length ?? 0) > 0) yield withoutUsage(chunk);
      }
      const held = restorer?.flush(last);
      if (held) yield held;
      outcome = { statusCode: 200, errorMessage: null };
      if (merger.finished && !merger.overflowed) router.answered(sent, merger.result()!);
      // Stored before the stream closes, so a request sent right after the end can hit.
      if (merger.finished && !merger.overflowed) await store(merger.result());
    } catch (err) {
      if (!(err instanceof ClientAborted)) {
        const e = asDomainError(ctx, err);
        outcome = { statusCode: statusOf(e), errorMessage: e.message };
        throw e;
      }
    } finally {
      const merged = merger.result();
      // The log holds what the client received (its beginning, cut short, past what Hone holds);
      // the usage still fills the token and cost columns.
      const received = merger.overflowed ? truncatedPayload(JSON.stringify(asReceived(merged)), merger.seenChars, max).marker : asReceived(merged);
      log({
        ...outcome,
        respPayload: received,
        usage: merger.usage,
        completionId: merged?.id ?? null,
        warning: merger.overflowed ? cutShort(merger.seenChars, max) : null,
      });
    }
  }
  return { kind: "stream", chunks: relay(), cache: cacheStatus };
}

/**
 * What the log of a passed-through answer keeps: its beginning, cut short with its full size (so it
 * never becomes a dataset entry); the usage and id found in its text (usage is at the end of an
 * OpenAI answer, the id at its start).
 */
function passedOutcome(o: PassThroughOutcome, max: number): Parameters<CallLog["log"]>[0] {
  const failed = o.error ? toDomainErrorOutcome(o.error) : null;
  let usage: Usage | null = null;
  const usageText = [...o.tail.matchAll(/"usage"\s*:\s*(\{[^{}]*(?:\{[^{}]*\}[^{}]*)*\})/g)].at(-1)?.[1];
  if (usageText && !failed) {
    try {
      usage = JSON.parse(usageText) as Usage;
    } catch {
      usage = null;
    }
  }
  const id = /^\s*\{[\s\S]{0,2000}?"id"\s*:\s*"([^"\\]{1,256})"/.exec(o.head)?.[1] ?? null;
  const bytes = Math.max(o.bytes, Buffer.byteLength(o.head));
  return {
    statusCode: failed?.statusCode ?? 200,
    errorMessage: failed?.errorMessage ?? null,
    respPayload: truncatedPayload(o.head, bytes, max).marker,
    usage,
    completionId: id,
    warning: cutShort(bytes, max),
  };
}

const cutShort = (bytes: number, max: number) =>
  `the response of about ${bytes.toLocaleString("en-US")} bytes was passed on whole and is stored cut short (HONE_MAX_LOGGED_PAYLOAD_BYTES is ${max.toLocaleString("en-US")})`;

function toDomainErrorOutcome(err: PassThroughOutcome["error"]): { statusCode: number; errorMessage: string } {
  if (err instanceof ClientAborted) return { statusCode: CLIENT_CLOSED_STATUS, errorMessage: CLIENT_CLOSED_MESSAGE };
  const e = toDomainError(err);
  return { statusCode: statusOf(e), errorMessage: e.message };
}

function withoutUsage(chunk: ChatCompletionChunk): ChatCompletionChunk {
  const { usage: _usage, ...rest } = chunk;
  return rest as ChatCompletionChunk;
}

/** Only whole, successful answers are cached: every choice finished. */
function isComplete(c: ChatCompletion | null): c is ChatCompletion {
  return !!c && Array.isArray(c.choices) && c.choices.length > 0 && c.choices.every((ch) => ch.finish_reason != null);
}
