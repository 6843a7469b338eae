import { anthropicUpstream } from "./anthropic";
import type { HttpOptions } from "./http";
import { openAiUpstream } from "./openai";
import type { UpstreamFactory } from "./types";

export type { ChatCompletion, ChatCompletionChunk, ChatUpstream, Choice, UpstreamFactory, UpstreamTarget, Usage } from "./types";
export { ClientAborted } from "./http";
export { fromAnthropicMessage, fromAnthropicRequest } from "./anthropic-format";

/** Builds the client for an upstream; the one place that knows every provider's wire protocol. */
export function createUpstreamFactory(http: HttpOptions): UpstreamFactory {
  return (target) => (target.kind === "anthropic" ? anthropicUpstream(target, http) : openAiUpstream(target, http));
}
