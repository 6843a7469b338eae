import { calcPrice, type Provider } from "@pydantic/genai-prices";
import type { Usage } from "../../providers";

// Prices come from @pydantic/genai-prices (a maintained table of provider prices), never from
// constants typed here. Unknown models (custom providers, unreleased names) cost null, not 0.
const PROVIDER_IDS: Record<string, string> = { openai: "openai", anthropic: "anthropic", gemini: "google" };

type PriceUsage = { input_tokens: number; output_tokens: number; cache_read_tokens?: number; cache_write_tokens?: number };
/** $ per million tokens of a model priced per token, flat (no tiers). */
type Linear = { input_mtok: number; output_mtok: number; cache_read_mtok?: number; cache_write_mtok?: number };
type Remembered = { expires: number; linear: Linear | null; provider: Provider } | { expires: number; unknown: true };

// Matching a model against the whole table costs tens of µs a call (~12% of the gateway's CPU under
// load). The match is remembered per model for an hour (prices can change on a date); a flat
// per-token price is then applied directly, anything else (tiers) is priced by the library
// against a table holding only that model.
const REMEMBER_MS = 60 * 60 * 1000;
const remembered = new Map<string, Remembered>();
const LINEAR_KEYS = new Set(["input_mtok", "output_mtok", "cache_read_mtok", "cache_write_mtok"]);

function toUsage(usage: Usage): PriceUsage {
  const cacheRead = usage.prompt_tokens_details?.cached_tokens ?? 0;
  const cacheWrite = usage.cache_creation_input_tokens ?? 0;
  return {
    input_tokens: usage.prompt_tokens ?? 0,
    output_tokens: usage.completion_tokens ?? 0,
    ...(cacheRead ? { cache_read_tokens: cacheRead } : {}),
    ...(cacheWrite ? { cache_write_tokens: cacheWrite } : {}),
  };
}

/**
 * The flat rates of the four token kinds Hone reports, or null when any of them is tiered. Rates
 * of units Hone never reports (audio, web searches) play no part in its prices either way.
 */
function linearOf(modelPrice: Record<string, unknown>): Linear | null {
  const out: Record<string, number> = {};
  for (const k of LINEAR_KEYS) {
    const v = modelPrice[k];
    if (v === undefined) continue;
    if (typeof v !== "number") return null;
    out[k] = v;
  }
  return typeof out.input_mtok === "number" && typeof out.output_mtok === "number" ? (out as Linear) : null;
}

/** A flat price applied to usage; input tokens include cache reads and writes, priced at their own rates. */
function linearCost(p: Linear, u: PriceUsage): number {
  const read = u.cache_read_tokens ?? 0;
  const write = u.cache_write_tokens ?? 0;
  const uncached = Math.max(0, u.input_tokens - read - write);
  return (
    (uncached * p.input_mtok + read * (p.cache_read_mtok ?? p.input_mtok) + write * (p.cache_write_mtok ?? p.input_mtok) + u.output_tokens * p.output_mtok) /
    1e6
  );
}

export function costOf(provider: string, model: string, usage: Usage | null | undefined): number | null {
  const providerId = PROVIDER_IDS[provider];
  if (!providerId || !usage) return null;
  const key = `${providerId}\u0000${model}`;
  const u = toUsage(usage);
  try {
    const known = remembered.get(key);
    if (known && known.expires > Date.now()) {
      if ("unknown" in known) return null;
      if (known.linear) return linearCost(known.linear, u);
      const price = calcPrice(u, model, { provider: known.provider });
      return price ? Number(price.total_price) : null;
    }
    const price = calcPrice(u, model, { providerId });
    if (remembered.size > 5_000) remembered.clear();
    const expires = Date.now() + REMEMBER_MS;
    remembered.set(
      key,
      price
        ? {
            expires,
            linear: linearOf(price.model_price as Record<string, unknown>),
            provider: { ...price.provider, models: [price.model], fallback_model_providers: [] },
          }
        : { expires, unknown: true },
    );
    return price ? Number(price.total_price) : null;
  } catch {
    // Pricing is best effort: a price table that cannot price this usage leaves the cost unknown
    // (null) rather than failing a call that already succeeded.
    return null;
  }
}
