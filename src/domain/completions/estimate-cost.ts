import type { Ctx } from "../../context";
import type { Usage } from "../../providers";
import { checkedUsage } from "../logs";
import { catalogueCost, findBaseModel, findModelRow } from "../models";
import { costOf } from "./cost";
import { resolveModel } from "./resolve-model";

/** What a call to this gateway model string costs for this usage (null when unknown). */
export async function estimateCost(ctx: Ctx, model: string, raw: Usage | null | undefined): Promise<number | null> {
  const { usage } = checkedUsage(raw);
  if (!usage) return null;
  const route = resolveModel(model, ctx.deps.config.modelPrefixes);
  if (route.provider === "hone") {
    const row = await findModelRow(ctx, route.slug);
    const pricing = row ? findBaseModel(row.baseModel)?.pricing : undefined;
    return pricing ? catalogueCost(pricing, usage) : null;
  }
  return route.provider === "custom" ? null : costOf(route.provider, route.upstreamModel, usage);
}
