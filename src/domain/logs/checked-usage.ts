import { MAX_TOKENS_PER_CALL } from "../../core/limits";
import type { Usage } from "../../providers";
import { inputOutput } from "../pricing";

// Token counts come from whoever reports a call, or from an upstream a tenant may have chosen. A
// count that cannot be true (1e300, -5, 1.5, "7") would otherwise be priced and summed into the
// project's usage for good: one report with prompt_tokens 1e300 made every total 1.25e295 USD.
// Such a usage is not kept at all: the log's tokens and cost stay empty, with a warning saying
// why, and the payload keeps the value exactly as sent.

const COUNTED: [string, (u: Usage) => unknown][] = [
  ["prompt_tokens", (u) => u.prompt_tokens],
  ["completion_tokens", (u) => u.completion_tokens],
  ["total_tokens", (u) => u.total_tokens],
  ["prompt_tokens_details.cached_tokens", (u) => u.prompt_tokens_details?.cached_tokens],
  ["completion_tokens_details.reasoning_tokens", (u) => u.completion_tokens_details?.reasoning_tokens],
  ["cache_creation_input_tokens", (u) => u.cache_creation_input_tokens],
  ["cache_creation.ephemeral_5m_input_tokens", (u) => u.cache_creation?.ephemeral_5m_input_tokens],
  ["cache_creation.ephemeral_1h_input_tokens", (u) => u.cache_creation?.ephemeral_1h_input_tokens],
  ["prompt_tokens_details.audio_tokens", (u) => u.prompt_tokens_details?.audio_tokens],
  ["completion_tokens_details.audio_tokens", (u) => u.completion_tokens_details?.audio_tokens],
];

const isCount = (v: unknown) => typeof v === "number" && Number.isInteger(v) && v >= 0 && v <= MAX_TOKENS_PER_CALL;

const shown = (v: unknown) => (typeof v === "string" ? JSON.stringify(v.slice(0, 40)) : String(v).slice(0, 40));

/** The usage when every count in it is a whole number from 0 to MAX_TOKENS_PER_CALL; else none, and why. */
export function checkedUsage(usage: Usage | null | undefined): { usage: Usage | null; warning: string | null } {
  if (!usage || typeof usage !== "object") return { usage: null, warning: null };
  for (const [name, get] of COUNTED) {
    let v: unknown;
    try {
      v = get(usage);
    } catch {
      v = "(unreadable)";
    }
    if (v === undefined || v === null || isCount(v)) continue;
    return {
      usage: null,
      warning:
        `usage.${name} is ${shown(v)}, not a token count (a whole number from 0 to ${MAX_TOKENS_PER_CALL}): ` +
        "the log's tokens and cost are left empty; the payload keeps the value as sent",
    };
  }
  return { usage, warning: null };
}

const countOrNull = (v: unknown) => (typeof v === "number" ? v : null);

/**
 * A checked usage's tokens by class, as a log keeps them: cached input and cache writes are part of
 * the input tokens, reasoning part of the output tokens (OpenAI's and Anthropic's usage, once in
 * chat terms, both count them that way). A class the answer did not report is null.
 */
export function tokenClasses(usage: Usage | null | undefined) {
  // Output with reasoning a provider counted outside completion_tokens added back (pricing/token-classes.ts).
  const outside = usage && typeof usage.completion_tokens === "number" ? inputOutput(usage).output : null;
  return {
    inputTokens: countOrNull(usage?.prompt_tokens),
    outputTokens: outside ?? countOrNull(usage?.completion_tokens),
    cachedInputTokens: countOrNull(usage?.prompt_tokens_details?.cached_tokens),
    cacheWriteTokens: countOrNull(usage?.cache_creation_input_tokens),
    reasoningTokens: countOrNull(usage?.completion_tokens_details?.reasoning_tokens),
  };
}
