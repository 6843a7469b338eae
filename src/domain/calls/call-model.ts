import type { Ctx } from "../context";
import type { InternalKind } from "../../core/internal-kinds";
import { parseInput } from "../../core/errors";
import type { ChatCompletion } from "../../providers";
import { createCallLog } from "./call-log";
import { resolveModel } from "../projects";
import { answeredAs, resolveUpstream, upstreamBody } from "./resolve-upstream";
import { CompiledChatCompletionRequest } from "./schemas";

type CallModelInput = {
  /** A chat-completions body; `model` is any gateway model string, fine-tunes included. */
  body: Record<string, unknown>;
  /** Tags for the log (which judge, evaluation or relabel task made the call). */
  tags: Record<string, string>;
  signal: AbortSignal;
};

/**
 * One model call for Hone's own work (judges, evaluations, relabelling): no cache, no criteria,
 * never streamed, and always logged (fine-tunes included), so every verdict and every evaluated
 * output can be traced to the call that produced it. The gateway builds on the same pieces.
 */
export async function callModel(ctx: Ctx & { internal: InternalKind }, input: CallModelInput): Promise<ChatCompletion> {
  const request = parseInput(CompiledChatCompletionRequest, input.body);
  const call = await createCallLog(ctx, { request, rawBody: input.body, tags: input.tags, shouldLog: () => true });
  try {
    const up = await resolveUpstream(ctx, resolveModel(request.model, ctx.deps.config.modelPrefixes));
    call.useUpstream(up);
    const completion = answeredAs(up, await up.client.complete(upstreamBody(request, up, false), { signal: input.signal }));
    call.log({ statusCode: 200, errorMessage: null, respPayload: completion, usage: completion.usage, completionId: completion.id });
    return completion;
  } catch (err) {
    throw call.failure(err);
  }
}
