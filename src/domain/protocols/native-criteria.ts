import type { Ctx } from "../context";
import { DomainError } from "../../core/errors";
import type { ChatCompletion } from "../../providers";
import type { CallLog, ChatCompletionRequest } from "../calls";
import { judgeChoices, resolveCriteriaRefs } from "../criteria";
import { requireKeyMayCall } from "../projects";

// op-criteria on /messages and /responses. Neither protocol has choices, so the answer (a Message,
// a Response) is judged in its chat form as the one choice of a chat completion is, by the same
// judges with the same caps, and the results travel as the answer's top-level `criteria_results`
// (keyed by criterion id, as on each chat choice: an extra member the SDKs ignore). As on chat, the
// answer must be whole to be judged: a stream with op-criteria is a 400 before any upstream call.

/** A chat completion's first choice's criteria results, if it was judged. */
export function criteriaResultsOf(chat: ChatCompletion): Record<string, unknown> | undefined {
  return (chat.choices[0] as { criteria_results?: Record<string, unknown> } | undefined)?.criteria_results;
}

/** The answer with the judged chat form's results on it (unchanged when nothing was judged). */
export function withCriteriaResults<T extends Record<string, unknown>>(answer: T, chat: ChatCompletion): T {
  const results = criteriaResultsOf(chat);
  return results ? { ...answer, criteria_results: results } : answer;
}

export type NativeJudge = (chat: ChatCompletion) => Promise<ChatCompletion>;

/**
 * The judge of a natively passed answer, or null without op-criteria: the criteria resolved now
 * (an unknown id is a 404 before the call); the request's chat form is what the judges read.
 */
export async function nativeJudge(
  ctx: Ctx,
  refs: string[],
  opts: { stream: boolean; request: ChatCompletionRequest | null; endpoint: string },
): Promise<NativeJudge | null> {
  if (!refs.length) return null;
  if (opts.stream) {
    const why = `Criteria (op-criteria) cannot be used with stream: true on ${opts.endpoint}: the answer must be complete to be judged. Send the request without streaming.`;
    throw new DomainError("VALIDATION", why, { issues: [{ message: "op-criteria requires stream: false", path: ["stream"] }] });
  }
  if (!opts.request) {
    const why = `op-criteria cannot judge this call: its conversation has no chat form for the judges to read`;
    throw new DomainError("VALIDATION", why, { issues: [{ message: why, path: ["op-criteria"] }] });
  }
  const request = opts.request;
  const criteria = await resolveCriteriaRefs(ctx, refs);
  // The judges are called on this key's behalf: each judge model must be one it may call.
  requireKeyMayCall(
    ctx,
    criteria.map((c) => c.judgeModel),
  );
  return (chat) => judgeChoices(ctx, criteria, { messages: request.messages, tools: request.tools, tool_choice: request.tool_choice }, chat);
}

/**
 * A whole native answer (a Message, a Response) as the client receives it: judged in its chat form
 * when the call has op-criteria, the results on it, and logged with the chat form beside it.
 */
export async function judgedAnswer<T extends Record<string, unknown>>(
  call: CallLog,
  judge: NativeJudge | null,
  answer: { native: T; chat: ChatCompletion; cacheHit: boolean },
): Promise<T> {
  const chat = judge ? await judge(answer.chat) : answer.chat;
  const out = withCriteriaResults(answer.native, chat);
  call.log({
    statusCode: 200,
    errorMessage: null,
    respPayload: chat,
    respPayloadOriginal: out,
    usage: chat.usage,
    completionId: String(answer.native.id ?? ""),
    cacheHit: answer.cacheHit,
  });
  return out;
}
