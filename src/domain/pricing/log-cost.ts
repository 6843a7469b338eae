import type { Usage } from "../../providers";
import { type CostFlag, type GivenRates, priceUsage, tableRates } from "./price-usage";
import { TOKEN_CLASSES } from "./token-classes";

/** What a log keeps of a call's price (request_logs: cost_usd, classes, price_version, cost_flag). */
export type LogCost = {
  costUsd: number | null;
  classes: Record<string, number> | null;
  priceVersion: string | null;
  costFlag: CostFlag | null;
};

/** The rates a call is priced with: a fine-tune's catalogue price, else the price table's for its provider and model at `at`. */
export function ratesFor(
  provider: string | null,
  model: string | null,
  at: Date,
  catalogue?: { chatIn: number; chatOut: number; name: string } | null,
): GivenRates | null {
  if (catalogue) return { rates: { input_mtok: catalogue.chatIn, output_mtok: catalogue.chatOut }, version: `hone catalogue: ${catalogue.name}` };
  if (!provider || !model || provider === "custom" || provider === "hone") return null;
  return tableRates(provider, model, at);
}

/**
 * A log's cost from its usage and rates. A cache hit costs nothing (no provider was called). A call
 * that was answered (`answered`) with no token counts or no price is flagged, its cost null; a
 * failed call is not flagged (it is billed nothing, and its status says why).
 */
export function logCost(
  usage: Usage | null | undefined,
  rates: GivenRates | null,
  o: { answered: boolean; cacheHit?: boolean; durationMs?: number | null },
): LogCost {
  if (o.cacheHit) return { costUsd: 0, classes: null, priceVersion: null, costFlag: null };
  if (rates?.usdPerHour !== undefined) return withCallTime(logCost(usage, { rates: rates.rates, version: rates.version }, o), rates, o);
  const p = priceUsage(usage, rates);
  const tokenCount = Object.keys(p.tokens).length;
  let classes: Record<string, number> | null = null;
  if (tokenCount) {
    classes = {};
    for (const c of TOKEN_CLASSES) {
      const t = p.tokens[c];
      if (!t) continue;
      classes[`${c}_tokens`] = t;
      const usd = p.costs[c];
      if (usd !== undefined) classes[`${c}_usd`] = usd;
    }
  }
  return { costUsd: p.costUsd, classes, priceVersion: p.priceVersion, costFlag: o.answered ? p.flag : null };
}

/**
 * A price per hour of call time on top of the token classes: the call's duration at that rate, as
 * the class `compute` (`compute_seconds`, `compute_usd`). A call without a duration (a report
 * without its times) cannot be priced by time: flagged no_usage unless its tokens were priced.
 */
function withCallTime(tokens: LogCost, rates: GivenRates, o: { answered: boolean; durationMs?: number | null }): LogCost {
  if (o.durationMs == null) return tokens.costUsd === null ? { ...tokens, costFlag: o.answered ? "no_usage" : null } : tokens;
  const seconds = o.durationMs / 1000;
  const usd = (seconds * (rates.usdPerHour ?? 0)) / 3600;
  return {
    costUsd: (tokens.costUsd ?? 0) + usd,
    classes: { ...(tokens.classes ?? {}), compute_seconds: seconds, compute_usd: usd },
    priceVersion: rates.version,
    costFlag: null,
  };
}
