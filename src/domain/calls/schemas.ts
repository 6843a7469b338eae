import { z } from "zod";
import {
  MAX_CHOICES,
  MAX_CRITERIA_PER_REQUEST,
  MAX_EMBEDDING_DIMENSIONS,
  MAX_EMBEDDING_INPUT_CHARS,
  MAX_EMBEDDING_INPUT_TOKENS,
  MAX_EMBEDDING_INPUTS,
  MAX_FALLBACKS,
  MAX_ID_LENGTH,
} from "../../core/limits";
import { ChatMessage, FunctionDefinition, Tool, ToolChoice, modelName } from "../chat";
import { Tags } from "../logs";

export const CacheMode = z.enum(["readWrite", "readOnly", "writeOnly"]);
export type CacheMode = z.infer<typeof CacheMode>;

/** The `hone` body member: the same controls as the op-* headers, stripped before the upstream call. */
export const HoneControls = z.strictObject({
  cache: z.union([CacheMode, z.boolean()]).optional(),
  criteria: z.array(z.string().min(1).max(MAX_ID_LENGTH)).max(MAX_CRITERIA_PER_REQUEST, `at most ${MAX_CRITERIA_PER_REQUEST} criteria per request`).optional(),
  tags: Tags.optional(),
  logRequest: z.boolean().optional(),
  /** Model strings to try in turn when the model fails (see domain/routing). */
  fallbacks: z.array(modelName("fallback")).max(MAX_FALLBACKS, `at most ${MAX_FALLBACKS} fallbacks per request`).optional(),
});

// SPEC.md's members are checked; every other member OpenAI accepts (seed, stop, logprobs,
// response_format, reasoning_effort, parallel_tool_calls, ...) passes through untouched.
export const ChatCompletionRequest = z.looseObject({
  model: modelName("model"),
  messages: z.array(ChatMessage, { error: "messages must be an array of chat messages" }).min(1, "messages must not be empty"),
  audio: z
    .strictObject({
      format: z.enum(["wav", "mp3", "flac", "opus", "pcm16"]),
      voice: z.enum(["alloy", "ash", "ballad", "coral", "echo", "sage", "shimmer", "verse"]),
    })
    .nullish(),
  function_call: z.union([z.enum(["none", "auto"]), z.strictObject({ name: z.string() })]).optional(),
  functions: z.array(FunctionDefinition).optional(),
  tool_choice: ToolChoice.optional(),
  tools: z.array(Tool).optional(),
  n: z.number().int().min(1).max(MAX_CHOICES, `n may be at most ${MAX_CHOICES}`).nullish(),
  max_tokens: z.number().int().min(1).nullish(),
  max_completion_tokens: z.number().int().min(1).nullish(),
  temperature: z.number().min(0).max(2).nullish(),
  top_p: z.number().min(0).max(1).nullish(),
  metadata: Tags.nullish(),
  store: z.boolean().nullish(),
  stream: z.boolean().nullish(),
  stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullish(),
  hone: HoneControls.optional(),
});
export type ChatCompletionRequest = z.output<typeof ChatCompletionRequest>;

/**
 * The same schema compiled ahead of time for the gateway's hot path: a valid request is checked by
 * generated code that allocates about a quarter of what the interpreted parser does (less GC, so a
 * shorter latency tail); an invalid one falls back to the interpreted parser, so the issues
 * reported are exactly the same. `strict` makes a schema the compiler cannot handle fail at start.
 */
export const CompiledChatCompletionRequest = z.compile(ChatCompletionRequest, { strict: true });

const INPUT_SHAPES = "input must be a string, an array of strings, an array of token ids (integers), or an array of token-id arrays";
const TokenId = z.number().int().min(0);

/** OpenAI's four input shapes; the caps are checked once the shape is known, so each names its limit. */
const EmbeddingInput = z
  .union([z.string(), z.array(z.string()), z.array(TokenId), z.array(z.array(TokenId))], { error: INPUT_SHAPES })
  .superRefine((input, ctx) => {
    const issue = (message: string, path: (string | number)[] = []) => ctx.addIssue({ code: "custom", message, path });
    if (typeof input === "string") {
      if (input.length === 0) issue("input must not be empty");
      else if (input.length > MAX_EMBEDDING_INPUT_CHARS) issue(`input may be at most ${MAX_EMBEDDING_INPUT_CHARS} characters`);
      return;
    }
    if (input.length === 0) return issue("input must not be an empty array");
    const first = input[0];
    if (typeof first === "number") {
      if (input.length > MAX_EMBEDDING_INPUT_TOKENS) issue(`a token array may hold at most ${MAX_EMBEDDING_INPUT_TOKENS} token ids`);
      return;
    }
    if (input.length > MAX_EMBEDDING_INPUTS) return issue(`at most ${MAX_EMBEDDING_INPUTS} inputs per request`);
    input.forEach((item, i) => {
      if (typeof item === "string") {
        if (item.length === 0) issue("input must not be empty", [i]);
        else if (item.length > MAX_EMBEDDING_INPUT_CHARS) issue(`input may be at most ${MAX_EMBEDDING_INPUT_CHARS} characters`, [i]);
      } else if (Array.isArray(item)) {
        if (item.length === 0) issue("a token array must not be empty", [i]);
        else if (item.length > MAX_EMBEDDING_INPUT_TOKENS) issue(`a token array may hold at most ${MAX_EMBEDDING_INPUT_TOKENS} token ids`, [i]);
      }
    });
  })
  .describe(
    `${INPUT_SHAPES}; at most ${MAX_EMBEDDING_INPUTS} inputs, each of at most ${MAX_EMBEDDING_INPUT_CHARS} characters or ${MAX_EMBEDDING_INPUT_TOKENS} token ids`,
  );

/** The `hone` member of an embeddings request: chat's controls but criteria, plus whether the log keeps the vectors. */
const EmbeddingHoneControls = z.strictObject({
  cache: z.union([CacheMode, z.boolean()]).optional(),
  tags: Tags.optional(),
  logRequest: z.boolean().optional(),
  logVectors: z.boolean().optional(),
  fallbacks: z.array(modelName("fallback")).max(MAX_FALLBACKS, `at most ${MAX_FALLBACKS} fallbacks per request`).optional(),
});

// OpenAI's Embeddings API request; other members (provider-specific options such as `input_type`)
// pass through untouched, as on chat completions.
export const EmbeddingsRequest = z.looseObject({
  model: modelName("model"),
  input: EmbeddingInput,
  dimensions: z.number().int().min(1).max(MAX_EMBEDDING_DIMENSIONS, `dimensions may be at most ${MAX_EMBEDDING_DIMENSIONS}`).optional(),
  encoding_format: z.enum(["float", "base64"], { error: "encoding_format must be float or base64" }).optional(),
  user: z.string().max(MAX_ID_LENGTH, `user may be at most ${MAX_ID_LENGTH} characters`).optional(),
  metadata: Tags.nullish(),
  hone: EmbeddingHoneControls.optional(),
});
export type EmbeddingsRequest = z.output<typeof EmbeddingsRequest>;

/** Raw op-* header values, as the transport received them. */
export type ControlHeaders = {
  logRequest?: string | null;
  cache?: string | null;
  criteria?: string | null;
  tags?: string | null;
  fallbacks?: string | null;
  /** Embeddings only: `op-log-vectors`. */
  logVectors?: string | null;
};

export type Controls = {
  /** What the client said (header or `hone.logRequest`); undefined when it said nothing. */
  logRequest: boolean | undefined;
  cache: CacheMode | null;
  criteria: string[];
  tags: Record<string, unknown>;
  /** Model strings to try in turn when the model fails; empty: none. */
  fallbacks: string[];
};
