// The o200k_base tokenizer (gpt-tokenizer), loaded on first use: building its tables costs about
// 65 MB of memory and half a second of CPU, in every thread that imports it, and only two rare
// verbs count tokens themselves (a fine-tune's estimate, count_tokens for non-Anthropic models).

type CountTokens = (text: string) => number;
let loading: Promise<CountTokens> | null = null;
let loaded: CountTokens | null = null;

/** The tokenizer when it has loaded (no wait on the gateway's path), else null. */
export const loadedTokenCounter = (): CountTokens | null => loaded;

/** The tokenizer's countTokens, once it has loaded (the first call loads it, later calls share it). */
export function tokenCounter(): Promise<CountTokens> {
  loading ??= import("gpt-tokenizer").then((m) => {
    loaded = m.countTokens;
    return m.countTokens;
  });
  return loading;
}
