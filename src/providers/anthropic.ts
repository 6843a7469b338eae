import { DomainError } from "../core/errors";
import { createStreamTranslator, fromAnthropicMessage, toAnthropicRequest } from "./anthropic-format";
import { postJson, readAnswer, readCallBody, type HttpOptions } from "./http";
import { storableBody, upstreamHttpError } from "./upstream-errors";
import { nativeJsonBatches, nativeJsonEvents, readSse, readSseBatches } from "./sse";
import type { ChatCompletion, ChatCompletionChunk, ChatUpstream, NativeOptions, Usage, UpstreamTarget } from "./types";

const ANTHROPIC_VERSION = "2023-06-01";

/** Anthropic's native Messages API behind the OpenAI chat-completions interface. */
export function anthropicUpstream(target: Extract<UpstreamTarget, { kind: "anthropic" }>, http: HttpOptions): ChatUpstream {
  const url = `${target.baseUrl}/v1/messages`;
  const headers = { "x-api-key": target.apiKey, "anthropic-version": ANTHROPIC_VERSION };
  const now = () => Math.floor(Date.now() / 1000);

  async function one(body: Record<string, unknown>, signal: AbortSignal): Promise<ChatCompletion> {
    const request = toAnthropicRequest(body, String(body.model));
    const call = await postJson(url, headers, request, target.label, signal, http);
    const parsed = await readAnswer(call, target.label, http.timeoutMs, http.maxAnswerBytes, false);
    if (!call.response.ok) throw upstreamHttpError(target.label, call.response.status, parsed, call.response.headers);
    if (typeof parsed !== "object" || parsed === null || (parsed as { type?: unknown }).type !== "message") {
      throw new DomainError("UPSTREAM_ERROR", `${target.label} returned a body that is not a message`, {
        upstreamStatus: 502,
        upstreamBody: storableBody(target.label, call.response.status, parsed),
      });
    }
    return fromAnthropicMessage(parsed as Record<string, unknown>, now());
  }

  const nativeHeaders = (beta: string | null | undefined) => (beta ? { ...headers, "anthropic-beta": beta } : headers);
  const nativeJson = async (path: string, body: Record<string, unknown>, { signal, beta }: NativeOptions, what: string) => {
    const call = await postJson(`${target.baseUrl}${path}`, nativeHeaders(beta), body, target.label, signal, http);
    const parsed = await readAnswer(call, target.label, http.timeoutMs, http.maxAnswerBytes, false);
    if (!call.response.ok) throw upstreamHttpError(target.label, call.response.status, parsed, call.response.headers);
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
      throw new DomainError("UPSTREAM_ERROR", `${target.label} returned a body that is not ${what}`, {
        upstreamStatus: 502,
        upstreamBody: storableBody(target.label, call.response.status, parsed),
      });
    }
    return parsed as Record<string, unknown>;
  };

  return {
    anthropic: {
      message: (body, opts) => nativeJson("/v1/messages", { ...body, stream: false }, opts, "a message"),
      countTokens: (body, opts) => nativeJson("/v1/messages/count_tokens", body, opts, "a token count"),
      async stream(body, { signal, beta }) {
        const call = await postJson(url, { ...nativeHeaders(beta), accept: "text/event-stream" }, { ...body, stream: true }, target.label, signal, http);
        if (!call.response.ok)
          throw upstreamHttpError(target.label, call.response.status, await readCallBody(call, target.label, http.timeoutMs), call.response.headers);
        return nativeJsonBatches(readSseBatches(call, target.label, http.timeoutMs), target.label, (event) => event === "message_stop");
      },
    },
    // Anthropic's answers are converted, so never passed through as they are; a message is never
    // near Hone's limit (output tokens are capped far below it).
    completeOrPass(body, opts) {
      return this.complete(body, opts);
    },
    async complete(body, { signal }) {
      const n = typeof body.n === "number" ? body.n : 1;
      if (n <= 1) return one(body, signal);
      // Anthropic has no `n`: sample n times concurrently and return them as n choices.
      const all = await Promise.all(Array.from({ length: n }, () => one(body, signal)));
      const first = all[0]!;
      const usage = all.reduce<Usage>(
        (acc, c) => ({
          prompt_tokens: acc.prompt_tokens + (c.usage?.prompt_tokens ?? 0),
          completion_tokens: acc.completion_tokens + (c.usage?.completion_tokens ?? 0),
          total_tokens: acc.total_tokens + (c.usage?.total_tokens ?? 0),
          prompt_tokens_details: {
            cached_tokens: (acc.prompt_tokens_details?.cached_tokens ?? 0) + (c.usage?.prompt_tokens_details?.cached_tokens ?? 0),
          },
        }),
        { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0, prompt_tokens_details: { cached_tokens: 0 } },
      );
      return { ...first, choices: all.map((c, index) => ({ ...c.choices[0]!, index })), usage };
    },

    async stream(body, { signal }) {
      if (typeof body.n === "number" && body.n > 1) {
        throw new DomainError("VALIDATION", "n > 1 cannot be streamed for anthropic models", {
          issues: [{ message: "n: streaming anthropic models supports only n = 1" }],
        });
      }
      const request = { ...toAnthropicRequest(body, String(body.model)), stream: true };
      const call = await postJson(url, { ...headers, accept: "text/event-stream" }, request, target.label, signal, http);
      if (!call.response.ok)
        throw upstreamHttpError(target.label, call.response.status, await readCallBody(call, target.label, http.timeoutMs), call.response.headers);
      return translate(readSse(call, target.label, http.timeoutMs), target.label, now());
    },
  };
}

async function* translate(events: AsyncGenerator<{ event?: string; data: string }>, label: string, created: number): AsyncGenerator<ChatCompletionChunk> {
  const t = createStreamTranslator(created);
  for await (const e of nativeJsonEvents(events, label, (event) => event === "message_stop")) {
    yield* t.translate(e.event, e.data);
    if (t.done) return;
  }
}
