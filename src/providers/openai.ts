import { DomainError } from "../core/errors";
import { isPassThrough, type PassThroughAnswer, postJson, readAnswer, readCallBody, type HttpOptions } from "./http";
import { storableBody, upstreamHttpError } from "./upstream-errors";
import { nativeJsonBatches, readSse, readSseBatches } from "./sse";
import type { ChatCompletion, ChatCompletionChunk, ChatUpstream, EmbeddingList, UpstreamTarget } from "./types";

/** The events that end a Responses stream (each carries the whole Response). */
const RESPONSE_ENDS = new Set(["response.completed", "response.incomplete", "response.failed"]);

type OpenAiLike = Extract<UpstreamTarget, { kind: "openai" | "azure" }>;

function endpoint(target: OpenAiLike, path = "chat/completions"): { url: string; headers: Record<string, string> } {
  if (target.kind === "azure") {
    const url =
      `${target.baseUrl}/openai/deployments/${encodeURIComponent(target.deployment)}/${path}` + `?api-version=${encodeURIComponent(target.apiVersion)}`;
    return { url, headers: target.apiKey ? { "api-key": target.apiKey } : {} };
  }
  return {
    url: `${target.baseUrl}/${path}`,
    headers: target.apiKey ? { authorization: `Bearer ${target.apiKey}` } : {},
  };
}

/** OpenAI and every API that speaks its chat-completions format (Gemini's, custom, Azure). */
export function openAiUpstream(target: OpenAiLike, http: HttpOptions): ChatUpstream {
  const { url, headers } = endpoint(target);
  const complete = async (body: Record<string, unknown>, signal: AbortSignal, pass: boolean): Promise<ChatCompletion | PassThroughAnswer> => {
    const call = await postJson(url, headers, { ...body, stream: false }, target.label, signal, http);
    const parsed = await readAnswer(call, target.label, http.timeoutMs, http.maxAnswerBytes, pass);
    if (isPassThrough(parsed)) return parsed;
    if (!call.response.ok) throw upstreamHttpError(target.label, call.response.status, parsed, call.response.headers);
    if (!isCompletion(parsed)) {
      throw new DomainError("UPSTREAM_ERROR", `${target.label} returned a body that is not a chat completion`, {
        upstreamStatus: 502,
        upstreamBody: storableBody(target.label, call.response.status, parsed),
      });
    }
    return parsed;
  };
  return {
    complete: (body, { signal }) => complete(body, signal, false) as Promise<ChatCompletion>,
    completeOrPass: (body, { signal }) => complete(body, signal, true),

    async stream(body, { signal }) {
      const streamOptions = { ...(body.stream_options as object | undefined), include_usage: true };
      const call = await postJson(
        url,
        { ...headers, accept: "text/event-stream" },
        { ...body, stream: true, stream_options: streamOptions },
        target.label,
        signal,
        http,
      );
      if (!call.response.ok)
        throw upstreamHttpError(target.label, call.response.status, await readCallBody(call, target.label, http.timeoutMs), call.response.headers);
      return chunksOf(readSse(call, target.label, http.timeoutMs), target.label);
    },

    responses:
      target.kind === "openai"
        ? {
            async create(body, { signal }) {
              const call = await postJson(endpoint(target, "responses").url, headers, { ...body, stream: false }, target.label, signal, http);
              const parsed = await readAnswer(call, target.label, http.timeoutMs, http.maxAnswerBytes, false);
              if (!call.response.ok) throw upstreamHttpError(target.label, call.response.status, parsed, call.response.headers);
              if (typeof parsed !== "object" || parsed === null || (parsed as { object?: unknown }).object !== "response") {
                throw new DomainError("UPSTREAM_ERROR", `${target.label} returned a body that is not a response`, {
                  upstreamStatus: 502,
                  upstreamBody: storableBody(target.label, call.response.status, parsed),
                });
              }
              return parsed as Record<string, unknown>;
            },
            async stream(body, { signal }) {
              const call = await postJson(
                endpoint(target, "responses").url,
                { ...headers, accept: "text/event-stream" },
                { ...body, stream: true },
                target.label,
                signal,
                http,
              );
              if (!call.response.ok)
                throw upstreamHttpError(target.label, call.response.status, await readCallBody(call, target.label, http.timeoutMs), call.response.headers);
              return nativeJsonBatches(readSseBatches(call, target.label, http.timeoutMs), target.label, (event) => RESPONSE_ENDS.has(event));
            },
          }
        : undefined,

    async embed(body, { signal }) {
      // Same deadline, SSRF pinning and error mapping as chat; only the path differs.
      const call = await postJson(endpoint(target, "embeddings").url, headers, body, target.label, signal, http);
      // An embeddings answer is rewritten before it goes out (vectors re-encoded, left out of the
      // log), so one larger than Hone holds is refused rather than passed through.
      const parsed = await readAnswer(call, target.label, http.timeoutMs, http.maxAnswerBytes, false);
      if (!call.response.ok) throw upstreamHttpError(target.label, call.response.status, parsed, call.response.headers);
      if (!isEmbeddingList(parsed)) {
        throw new DomainError("UPSTREAM_ERROR", `${target.label} returned a body that is not an embedding list`, {
          upstreamStatus: 502,
          upstreamBody: storableBody(target.label, call.response.status, parsed),
        });
      }
      return parsed;
    },
  };
}

function isEmbeddingList(v: unknown): v is EmbeddingList {
  if (typeof v !== "object" || v === null) return false;
  const data = (v as { data?: unknown }).data;
  return (
    Array.isArray(data) &&
    data.every((d) => {
      if (typeof d !== "object" || d === null) return false;
      const { index, embedding } = d as { index?: unknown; embedding?: unknown };
      return Number.isInteger(index) && (typeof embedding === "string" || (Array.isArray(embedding) && embedding.every((x) => typeof x === "number")));
    })
  );
}

async function* chunksOf(events: AsyncGenerator<{ data: string }>, label: string): AsyncGenerator<ChatCompletionChunk> {
  let done = false;
  let sawFinish = false;
  for await (const e of events) {
    if (e.data === "[DONE]") {
      done = true;
      break;
    }
    let chunk: ChatCompletionChunk;
    try {
      chunk = JSON.parse(e.data) as ChatCompletionChunk;
    } catch {
      throw new DomainError("UPSTREAM_ERROR", `${label} sent a stream event that is not JSON`, { upstreamStatus: 502 });
    }
    if ((chunk as { error?: unknown }).error) throw upstreamHttpError(label, 502, chunk);
    if (chunk.choices?.some((c) => c.finish_reason)) sawFinish = true;
    yield chunk;
  }
  // Some compatible servers omit [DONE]; a stream that reached a finish_reason is still whole.
  if (!done && !sawFinish) {
    throw new DomainError("UPSTREAM_ERROR", `${label} stream ended before the completion was finished`, { upstreamStatus: 502 });
  }
}

function isCompletion(v: unknown): v is ChatCompletion {
  return typeof v === "object" && v !== null && Array.isArray((v as { choices?: unknown }).choices);
}
