import { anthropicUpstream } from "./anthropic";
import type { HttpOptions, UpstreamGuard } from "./http";
import { openAiUpstream } from "./openai";
import type { UpstreamFactory } from "./types";

export type { ChatCompletion, ChatCompletionChunk, ChatUpstream, Choice, Embedding, EmbeddingList, UpstreamFactory, UpstreamTarget, Usage } from "./types";
export { ClientAborted, isPassThrough, UpstreamTimeout, type PassThroughAnswer, type PassThroughOutcome } from "./http";
export type { Batches, NativeEvent } from "./sse";
export { fromAnthropicMessage, fromAnthropicRequest } from "./anthropic-format";

export { checkUpstreamUrl, systemResolveHost, upstreamPolicy, type ResolveHost } from "./upstream-guard";

/**
 * Builds the client for an upstream; the one place that knows every provider's wire protocol.
 * Operator-set base URLs are trusted as they are; tenant-chosen ones always go through the guard.
 */
export function createUpstreamFactory(http: Omit<HttpOptions, "guard">, guard: UpstreamGuard): UpstreamFactory {
  const trusted: HttpOptions = { ...http };
  const guarded: HttpOptions = { ...http, guard };
  return (target) => (target.kind === "anthropic" ? anthropicUpstream(target, trusted) : openAiUpstream(target, target.tenantChosen ? guarded : trusted));
}
