import { calcPrice } from "@pydantic/genai-prices";
import type { Usage } from "../../providers";

// Prices come from @pydantic/genai-prices (a maintained table of provider prices), never from
// constants typed here. Unknown models (custom providers, unreleased names) cost null, not 0.
const PROVIDER_IDS: Record<string, string> = { openai: "openai", anthropic: "anthropic", gemini: "google" };

export function costOf(provider: string, model: string, usage: Usage | null | undefined): number | null {
  const providerId = PROVIDER_IDS[provider];
  if (!providerId || !usage) return null;
  const cacheRead = usage.prompt_tokens_details?.cached_tokens ?? 0;
  const cacheWrite = usage.cache_creation_input_tokens ?? 0;
  try {
    const price = calcPrice(
      {
        input_tokens: usage.prompt_tokens ?? 0,
        output_tokens: usage.completion_tokens ?? 0,
        ...(cacheRead ? { cache_read_tokens: cacheRead } : {}),
        ...(cacheWrite ? { cache_write_tokens: cacheWrite } : {}),
      },
      model,
      { providerId },
    );
    return price ? Number(price.total_price) : null;
  } catch {
    return null;
  }
}
