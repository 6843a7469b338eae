import type { PassThroughAnswer } from "./http";
import type { Batches, NativeEvent } from "./sse";
// The OpenAI chat-completions wire format, which Hone speaks to clients whatever the upstream.
// Loose on purpose: members Hone does not interpret are passed through untouched.

export type Usage = {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details?: { cached_tokens?: number; [k: string]: unknown } | null;
  completion_tokens_details?: { reasoning_tokens?: number; [k: string]: unknown } | null;
  /** Anthropic prompt-cache writes, which are priced apart. */
  cache_creation_input_tokens?: number;
  /** Of those writes, by the cache's lifetime (1-hour writes cost more than 5-minute ones). */
  cache_creation?: { ephemeral_5m_input_tokens?: number; ephemeral_1h_input_tokens?: number; [k: string]: unknown } | null;
  [k: string]: unknown;
};

export type ToolCallOut = { id: string; type: "function"; function: { name: string; arguments: string } };

export type ChoiceMessage = {
  role: "assistant";
  content: string | null;
  refusal?: string | null;
  tool_calls?: ToolCallOut[];
  function_call?: { name: string; arguments: string } | null;
  reasoning_content?: string;
  [k: string]: unknown;
};

export type Choice = {
  index: number;
  message: ChoiceMessage;
  finish_reason: string | null;
  logprobs?: unknown;
  [k: string]: unknown;
};

export type ChatCompletion = {
  id: string;
  object: "chat.completion";
  created: number;
  model: string;
  choices: Choice[];
  usage?: Usage | null;
  [k: string]: unknown;
};

export type ChunkDelta = {
  role?: "assistant";
  content?: string | null;
  refusal?: string | null;
  reasoning_content?: string;
  tool_calls?: { index: number; id?: string; type?: "function"; function?: { name?: string; arguments?: string } }[];
  function_call?: { name?: string; arguments?: string };
  [k: string]: unknown;
};

export type ChatCompletionChunk = {
  id: string;
  object: "chat.completion.chunk";
  created: number;
  model: string;
  choices: { index: number; delta: ChunkDelta; finish_reason: string | null; logprobs?: unknown; [k: string]: unknown }[];
  usage?: Usage | null;
  [k: string]: unknown;
};

/** One vector of an embeddings answer: numbers, or base64 of little-endian float32 (`encoding_format: base64`). */
export type Embedding = { object: "embedding"; index: number; embedding: number[] | string; [k: string]: unknown };

/** OpenAI's Embeddings API answer. */
export type EmbeddingList = {
  object: "list";
  data: Embedding[];
  model: string;
  usage?: { prompt_tokens: number; total_tokens: number; [k: string]: unknown } | null;
  [k: string]: unknown;
};

/**
 * Where and how to call one upstream. `tenantChosen` marks a base URL a tenant chose (a custom
 * provider) rather than the operator: it is held to the SSRF policy on every call.
 */
export type UpstreamTarget =
  | { kind: "openai"; label: string; baseUrl: string; apiKey: string | null; tenantChosen?: boolean }
  | { kind: "azure"; label: string; baseUrl: string; apiKey: string | null; apiVersion: string; deployment: string; tenantChosen?: boolean }
  | { kind: "anthropic"; label: string; baseUrl: string; apiKey: string };

export type CallOptions = { signal: AbortSignal };

export interface ChatUpstream {
  /**
   * One non-streamed completion in OpenAI form. Throws DomainError UPSTREAM_* on failure, and for
   * an answer larger than Hone holds (HONE_MAX_LOGGED_PAYLOAD_BYTES).
   */
  complete(body: Record<string, unknown>, opts: CallOptions): Promise<ChatCompletion>;
  /** The same, except that an answer larger than Hone holds is handed back as a pass-through stream. */
  completeOrPass(body: Record<string, unknown>, opts: CallOptions): Promise<ChatCompletion | PassThroughAnswer>;
  /**
   * A streamed completion as OpenAI chunks. Resolves once the upstream accepted the request
   * (so HTTP errors are thrown before any byte reaches the client); the last chunk carries usage.
   */
  stream(body: Record<string, unknown>, opts: CallOptions): Promise<AsyncIterable<ChatCompletionChunk>>;
  /** Anthropic upstreams only: the Messages API without translation. */
  anthropic?: AnthropicNative;
  /** OpenAI upstreams only: the Responses API without translation. */
  responses?: ResponsesNative;
  /**
   * An Embeddings API call (`POST <base>/embeddings`), for upstreams that have one (not Anthropic).
   * Throws DomainError UPSTREAM_* on failure, and for an answer larger than Hone holds.
   */
  embed?(body: Record<string, unknown>, opts: CallOptions): Promise<EmbeddingList>;
}

/** Anthropic's own Messages API, for clients that speak it: bodies and events as they are. */
export interface AnthropicNative {
  /** POST /v1/messages, not streamed: Anthropic's Message. */
  message(body: Record<string, unknown>, opts: NativeOptions): Promise<Record<string, unknown>>;
  /** POST /v1/messages streamed: its events (name and parsed data), once the upstream accepted. */
  stream(body: Record<string, unknown>, opts: NativeOptions): Promise<Batches<NativeEvent>>;
  /** POST /v1/messages/count_tokens. */
  countTokens(body: Record<string, unknown>, opts: NativeOptions): Promise<Record<string, unknown>>;
}

/** OpenAI's own Responses API, for clients that speak it: bodies and events as they are. */
export interface ResponsesNative {
  /** POST /responses, not streamed: the Response. */
  create(body: Record<string, unknown>, opts: CallOptions): Promise<Record<string, unknown>>;
  /** POST /responses streamed: its events, once the upstream accepted; ends with the Response's last event. */
  stream(body: Record<string, unknown>, opts: CallOptions): Promise<Batches<NativeEvent>>;
}

/** A native call's options: the client's anthropic-beta flags are forwarded. */
export type NativeOptions = CallOptions & { beta?: string | null };

export type UpstreamFactory = (target: UpstreamTarget) => ChatUpstream;
