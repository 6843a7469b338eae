import { CLASS_SUM_KEYS, TOKEN_CLASSES, type TokenClass } from "../../core/token-classes";
import type { Usage } from "../../providers";

export { CLASS_SUM_KEYS, TOKEN_CLASSES, type TokenClass };

// A call's tokens split into the classes providers bill apart. Every usage Hone reads arrives in
// chat terms (providers/anthropic-format.ts and protocols/responses-format.ts convert theirs):
// cached input and cache writes are part of prompt_tokens, reasoning and audio output part of
// completion_tokens. The classes do not overlap, so they add up to the call's input and output.

export type ClassCounts = Partial<Record<TokenClass, number>>;

const n = (v: unknown) => (typeof v === "number" && Number.isFinite(v) && v > 0 ? Math.floor(v) : 0);
const details = (v: unknown): Record<string, unknown> => (typeof v === "object" && v !== null ? (v as Record<string, unknown>) : {});

/**
 * The input and output tokens of a usage as a log keeps them. Reasoning is part of the output,
 * as OpenAI and Anthropic count it; an answer whose total says the reasoning was left out of
 * completion_tokens (Gemini's OpenAI-compatible API: total = prompt + completion + reasoning) has it
 * added back, so thinking is never billed as nothing.
 */
export function inputOutput(usage: Usage): { input: number; output: number } {
  const input = n(usage.prompt_tokens);
  const completion = n(usage.completion_tokens);
  const reasoning = n(details(usage.completion_tokens_details).reasoning_tokens);
  const total = n(usage.total_tokens);
  const outside = reasoning > 0 && total === input + completion + reasoning;
  return { input, output: outside ? completion + reasoning : completion };
}

/**
 * The tokens of each class. A part larger than its whole (a cache read above the prompt) is cut
 * to what is left of it, so the classes never add up to more than the call's tokens.
 */
export function classCounts(usage: Usage | null | undefined): ClassCounts {
  if (!usage) return {};
  const { input, output } = inputOutput(usage);
  const inDetails = details(usage.prompt_tokens_details);
  const outDetails = details(usage.completion_tokens_details);
  const creation = details(usage.cache_creation);
  let left = input;
  const take = (v: number) => {
    const t = Math.min(v, left);
    left -= t;
    return t;
  };
  const cacheRead = take(n(inDetails.cached_tokens));
  const writes = Math.min(n(usage.cache_creation_input_tokens), left);
  // Anthropic splits its writes by lifetime (cache_creation.ephemeral_1h_input_tokens); the rest are 5-minute writes.
  const write1h = take(Math.min(n(creation.ephemeral_1h_input_tokens), writes));
  const write5m = take(writes - write1h);
  const audioIn = take(n(inDetails.audio_tokens));
  let outLeft = output;
  const takeOut = (v: number) => {
    const t = Math.min(v, outLeft);
    outLeft -= t;
    return t;
  };
  const reasoning = takeOut(n(outDetails.reasoning_tokens));
  const audioOut = takeOut(n(outDetails.audio_tokens));
  const all: Record<TokenClass, number> = {
    input: left,
    cache_read: cacheRead,
    cache_write_5m: write5m,
    cache_write_1h: write1h,
    audio_input: audioIn,
    output: outLeft,
    reasoning,
    audio_output: audioOut,
  };
  const out: ClassCounts = {};
  for (const c of TOKEN_CLASSES) if (all[c] > 0) out[c] = all[c];
  return out;
}

/** One class of a summed or single classes map (`<class>_tokens`, `<class>_usd`), for the transports; `compute` counts seconds of call time. */
export type ClassFigure = { tokenClass: TokenClass | "compute"; tokens: number; costUsd: number | null };

/** A classes map as a list in bill order, classes without tokens or cost left out. */
export function classFigures(map: Record<string, number> | null | undefined): ClassFigure[] {
  if (!map) return [];
  const out: ClassFigure[] = [];
  for (const c of TOKEN_CLASSES) {
    const tokens = map[`${c}_tokens`] ?? 0;
    const usd = map[`${c}_usd`];
    if (!tokens && !usd) continue;
    out.push({ tokenClass: c, tokens, costUsd: usd ?? null });
  }
  if (map.compute_seconds || map.compute_usd) out.push({ tokenClass: "compute", tokens: map.compute_seconds ?? 0, costUsd: map.compute_usd ?? null });
  return out;
}
