import type { Ctx } from "../../context";
import type { Usage } from "../../providers";
import { checkedUsage } from "../logs";
import { findBaseModel, findModelRow } from "../models";
import { logCost, ratesFor } from "../pricing/log-cost";
import { resolveModel } from "./resolve-model";

/** What a call to this gateway model string costs for this usage now (null when unknown). */
export async function estimateCost(ctx: Ctx, model: string, raw: Usage | null | undefined): Promise<number | null> {
  const { usage } = checkedUsage(raw);
  if (!usage) return null;
  const route = resolveModel(model, ctx.deps.config.modelPrefixes);
  const at = ctx.deps.clock();
  if (route.provider === "hone") {
    const row = await findModelRow(ctx, route.slug);
    const pricing = row ? findBaseModel(row.baseModel)?.pricing : undefined;
    return pricing ? logCost(usage, ratesFor("hone", model, at, { ...pricing, name: model }), { answered: true }).costUsd : null;
  }
  return "upstreamModel" in route ? logCost(usage, ratesFor(route.provider, route.upstreamModel, at), { answered: true }).costUsd : null;
}
