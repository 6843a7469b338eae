import type { Ctx } from "../context";
import { parseInput } from "../../core/errors";
import { findModelRow, modelNotFound, toModel } from "./internal";
import { ModelSlugInput, type Model } from "./schemas";

export async function getModel(ctx: Ctx, raw: ModelSlugInput): Promise<Model> {
  const { slug } = parseInput(ModelSlugInput, raw);
  const row = await findModelRow(ctx, slug);
  if (!row) throw modelNotFound(slug);
  return toModel(row);
}
