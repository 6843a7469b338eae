import { calcPrice, type ModelInfo, type Provider } from "@pydantic/genai-prices";
import type { Usage } from "../../providers";
import { type ClassCounts, classCounts, TOKEN_CLASSES, type TokenClass } from "./token-classes";

// What a call cost, per token class, at the prices in force when it was made. Prices come from
// @pydantic/genai-prices (a maintained table with each model's price history: a price carries the
// date it starts on), or from rates Hone was given (a fine-tune's catalogue price, a project's
// override); never from constants typed here. A model without a price costs null, not 0.

/** The price table this build prices with (the installed @pydantic/genai-prices). */
export const PRICE_TABLE = "genai-prices 0.1.8";

/** $ per million tokens, by genai-prices' keys (input_mtok, cache_read_mtok, ...); a rate may be tiered by the call's input tokens. */
type Tiered = { base: number; tiers: { start: number; price: number }[] };
export type Rates = Record<string, number | Tiered | undefined>;

/**
 * The rate keys of each class, most specific first: a class without its own rate is billed at its
 * parent's (cache reads at the input rate when a model has no cache price, reasoning at the output
 * rate), as the providers bill and as genai-prices reckons.
 */
const RATE_KEYS: Record<TokenClass, string[]> = {
  input: ["input_mtok"],
  cache_read: ["cache_read_mtok", "input_mtok"],
  cache_write_5m: ["cache_write_5m_mtok", "cache_write_mtok", "input_mtok"],
  cache_write_1h: ["cache_write_1h_mtok", "cache_write_mtok", "input_mtok"],
  audio_input: ["input_audio_mtok", "input_mtok"],
  output: ["output_mtok"],
  reasoning: ["output_reasoning_mtok", "output_mtok"],
  audio_output: ["output_audio_mtok", "output_mtok"],
};

export type ClassCosts = Partial<Record<TokenClass, number>>;
/** Why a call's cost is not a plain figure: no token counts, or no price for its model. */
export type CostFlag = "no_usage" | "no_price";
export type PricedUsage = {
  costUsd: number | null;
  tokens: ClassCounts;
  costs: ClassCosts;
  /** Which price was used: the table and model (and the date its price started), or the rates' own name. */
  priceVersion: string | null;
  flag: CostFlag | null;
};

/**
 * Rates given by name (a catalogue price, an override), used instead of the table's. `usdPerHour`:
 * a price per hour of call time (a self-hosted or serverless deployment billed by the second).
 */
export type GivenRates = { rates: Rates; version: string; usdPerHour?: number };

/** The rate of one key for a call with `input` input tokens: a tier applies once the input passes its start. */
function rateOf(rates: Rates, keys: string[], input: number): number | null {
  for (const k of keys) {
    const r = rates[k];
    if (r === undefined) continue;
    if (typeof r === "number") return r;
    let price = r.base;
    for (const t of r.tiers) if (input > t.start) price = t.price;
    return price;
  }
  return null;
}

/** Each class's tokens at its rate; the cost is their sum. */
export function costsAt(rates: Rates, tokens: ClassCounts, inputTokens: number): { costUsd: number; costs: ClassCosts } {
  const costs: ClassCosts = {};
  let total = 0;
  for (const c of TOKEN_CLASSES) {
    const t = tokens[c];
    if (!t) continue;
    const usd = ((rateOf(rates, RATE_KEYS[c], inputTokens) ?? 0) * t) / 1e6;
    costs[c] = usd;
    total += usd;
  }
  return { costUsd: total, costs };
}

const PROVIDER_IDS: Record<string, string> = { openai: "openai", anthropic: "anthropic", gemini: "google" };

type Known = { expires: number; found: { provider: Provider; model: ModelInfo } | null };
// Matching a model against the whole table costs tens of µs a call (~12% of the gateway's CPU under
// load): the match is remembered per model for an hour, and later calls price against a table
// holding only that model.
const REMEMBER_MS = 60 * 60 * 1000;
const remembered = new Map<string, Known>();

function tableModel(providerId: string, model: string, now: number): Known["found"] {
  const key = `${providerId}\u0000${model}`;
  const known = remembered.get(key);
  if (known && known.expires > now) return known.found;
  let found: Known["found"] = null;
  try {
    const p = calcPrice({ input_tokens: 1, output_tokens: 1 }, model, { providerId });
    if (p) found = { provider: { ...p.provider, models: [p.model], fallback_model_providers: [] }, model: p.model };
  } catch {
    // A model string the table's matchers cannot take (the library throws on some): no price, so
    // the call is flagged no_price rather than failed after it was answered.
    found = null;
  }
  if (remembered.size > 5_000) remembered.clear();
  remembered.set(key, { expires: now + REMEMBER_MS, found });
  return found;
}

/** The table's rates for a model at a time, and their version; null when the table has no price for it. */
export function tableRates(provider: string, model: string, at: Date): GivenRates | null {
  const providerId = PROVIDER_IDS[provider];
  if (!providerId) return null;
  const found = tableModel(providerId, model, Date.now());
  if (!found) return null;
  const { model: info } = found;
  let rates: Rates;
  let since: string | null = null;
  if (Array.isArray(info.prices)) {
    // Prices that changed over time: the library picks the one in force at `at`.
    let p: ReturnType<typeof calcPrice>;
    try {
      p = calcPrice({ input_tokens: 1, output_tokens: 1 }, model, { provider: found.provider, timestamp: at });
    } catch {
      // A price entry the library cannot read for this time: no price (flagged), never a failed log.
      return null;
    }
    if (!p) return null;
    rates = p.model_price as Rates;
    const entry = info.prices.find((e) => e.prices === p.model_price);
    if (entry?.constraint?.type === "start_date") since = entry.constraint.start_date;
  } else rates = info.prices as Rates;
  return { rates, version: `${PRICE_TABLE}: ${found.provider.id}/${info.id}${since ? ` from ${since}` : ""}` };
}

/**
 * A call's cost by class. `rates`: the price to use (null: none is known). A usage with no token
 * counts is flagged no_usage; one with tokens but no price, no_price (its cost is null, never 0).
 */
export function priceUsage(usage: Usage | null | undefined, rates: GivenRates | null): PricedUsage {
  const tokens = classCounts(usage);
  const inputTokens = usage ? Math.max(0, Number(usage.prompt_tokens) || 0) : 0;
  const counted = Object.keys(tokens).length > 0;
  if (!counted) return { costUsd: null, tokens, costs: {}, priceVersion: null, flag: "no_usage" };
  if (!rates) return { costUsd: null, tokens, costs: {}, priceVersion: null, flag: "no_price" };
  const { costUsd, costs } = costsAt(rates.rates, tokens, inputTokens);
  return { costUsd, tokens, costs, priceVersion: rates.version, flag: null };
}
