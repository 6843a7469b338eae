import type { Ctx } from "../context";
import { parseInput } from "../../core/errors";
import { CheckCacheInput } from "../logs";

/**
 * Deprecated /check-cache: kept so old SDKs keep working. It validates the body and never
 * answers from the cache (caching happens on /chat/completions).
 */
export function checkCache(_ctx: Ctx, raw: unknown): { respPayload: null } {
  parseInput(CheckCacheInput, raw);
  return { respPayload: null };
}
