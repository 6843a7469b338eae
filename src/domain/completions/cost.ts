import { calcPrice, type Provider } from "@pydantic/genai-prices";
import type { Usage } from "../../providers";

// Prices come from @pydantic/genai-prices (a maintained table of provider prices), never from
// constants typed here. Unknown models (custom providers, unreleased names) cost null, not 0.
const PROVIDER_IDS: Record<string, string> = { openai: "openai", anthropic: "anthropic", gemini: "google" };

type PriceUsage = { input_tokens: number; output_tokens: number; cache_read_tokens?: number; cache_write_tokens?: number };
/** $ per million tokens of a model priced per token, flat (no tiers). */
type Linear = { input_mtok: number; output_mtok: number; cache_read_mtok?: number; cache_write_mtok?: number };
/** `upTo`: the flat rates hold while input tokens stay at or below it (tiered prices: their base). */
type Remembered = { expires: number; linear: Linear | null; upTo: number; provider: Provider } | { expires: number; unknown: true };

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
 * The flat rates of the four token kinds Hone reports, and up to how many input tokens they hold:
 * a tiered rate (`{base, tiers: [{start, price}]}`, a long-context surcharge) is its base while the
 * request's input tokens stay at or below its first tier's start, which is how the library picks a
 * tier. Null when a rate has any other shape. Rates of units Hone never reports (audio, web
 * searches) play no part in its prices either way.
 */
function linearOf(modelPrice: Record<string, unknown>): { linear: Linear; upTo: number } | null {
  const out: Record<string, number> = {};
  let upTo = Number.POSITIVE_INFINITY;
  for (const k of LINEAR_KEYS) {
    const v = modelPrice[k] as unknown;
    if (v === undefined) continue;
    if (typeof v === "number") out[k] = v;
    else if (isTiered(v)) {
      out[k] = v.base;
      for (const t of v.tiers) upTo = Math.min(upTo, t.start);
    } else return null;
  }
  return typeof out.input_mtok === "number" && typeof out.output_mtok === "number" ? { linear: out as Linear, upTo } : null;
}

function isTiered(v: unknown): v is { base: number; tiers: { start: number; price: number }[] } {
  const t = v as { base?: unknown; tiers?: unknown } | null;
  return (
    typeof t === "object" &&
    t !== null &&
    typeof t.base === "number" &&
    Array.isArray(t.tiers) &&
    t.tiers.every((x: { start?: unknown }) => typeof x?.start === "number")
  );
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
      if (known.linear && u.input_tokens <= known.upTo) return linearCost(known.linear, u);
      const price = calcPrice(u, model, { provider: known.provider });
      return price ? Number(price.total_price) : null;
    }
    const price = calcPrice(u, model, { providerId });
    if (remembered.size > 5_000) remembered.clear();
    const expires = Date.now() + REMEMBER_MS;
    const flat = price ? linearOf(price.model_price as Record<string, unknown>) : null;
    remembered.set(
      key,
      price
        ? {
            expires,
            linear: flat?.linear ?? null,
            upTo: flat?.upTo ?? Number.POSITIVE_INFINITY,
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
