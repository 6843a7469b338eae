import { calcPrice, type Provider } from "@pydantic/genai-prices";
import type { Usage } from "../../providers";

// Prices come from @pydantic/genai-prices (a maintained table of provider prices), never from
// constants typed here. Unknown models (custom providers, unreleased names) cost null, not 0.
const PROVIDER_IDS: Record<string, string> = { openai: "openai", anthropic: "anthropic", gemini: "google" };

// Matching a model name against the whole table costs ~40 µs; the match is remembered per
// provider and model, and later calls price against a provider holding just that model.
const matched = new Map<string, Provider | null>();

function toUsage(usage: Usage) {
  const cacheRead = usage.prompt_tokens_details?.cached_tokens ?? 0;
  const cacheWrite = usage.cache_creation_input_tokens ?? 0;
  return {
    input_tokens: usage.prompt_tokens ?? 0,
    output_tokens: usage.completion_tokens ?? 0,
    ...(cacheRead ? { cache_read_tokens: cacheRead } : {}),
    ...(cacheWrite ? { cache_write_tokens: cacheWrite } : {}),
  };
}

export function costOf(provider: string, model: string, usage: Usage | null | undefined): number | null {
  const providerId = PROVIDER_IDS[provider];
  if (!providerId || !usage) return null;
  const key = `${providerId}\u0000${model}`;
  try {
    const narrowed = matched.get(key);
    if (narrowed === null) return null;
    if (narrowed) {
      const price = calcPrice(toUsage(usage), model, { provider: narrowed });
      return price ? Number(price.total_price) : null;
    }
    const price = calcPrice(toUsage(usage), model, { providerId });
    if (matched.size > 5_000) matched.clear();
    matched.set(key, price ? { ...price.provider, models: [price.model], fallback_model_providers: [] } : null);
    return price ? Number(price.total_price) : null;
  } catch {
    return null;
  }
}
