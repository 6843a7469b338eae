import type { Ctx } from "../context";
import type { Usage } from "../../providers";
import { checkedUsage } from "../logs";
import { findBaseModel, findModelRow } from "../models";
import { logCost, ratesFor, projectOverrides, withOverride } from "../pricing";
import type { GivenRates } from "../pricing";
import { canonicalModel, resolveModel } from "../projects";

/** What a call to this gateway model string costs for this usage now, with the project's own price for it (null when unknown). */
export async function estimateCost(ctx: Ctx, model: string, raw: Usage | null | undefined): Promise<number | null> {
  const { usage } = checkedUsage(raw);
  if (!usage) return null;
  const route = resolveModel(model, ctx.deps.config.modelPrefixes);
  const at = ctx.deps.clock();
  let table: GivenRates | null = null;
  if (route.provider === "hone") {
    const row = await findModelRow(ctx, route.slug);
    const pricing = row ? findBaseModel(row.baseModel)?.pricing : undefined;
    table = pricing ? ratesFor("hone", model, at, { ...pricing, name: model }) : null;
  } else if ("upstreamModel" in route) table = ratesFor(route.provider, route.upstreamModel, at);
  const rates = withOverride(await projectOverrides(ctx), canonicalModel(model, ctx.deps.config.modelPrefixes), at, table);
  return logCost(usage, rates, { answered: true }).costUsd;
}
