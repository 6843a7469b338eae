import type { Ctx } from "../context";
import { parseInput } from "../../core/errors";
import { findDataset } from "./internal";
import { DatasetIdInput, type Dataset } from "./schemas";

export async function getDataset(ctx: Ctx, raw: DatasetIdInput): Promise<Dataset> {
  const input = parseInput(DatasetIdInput, raw);
  return findDataset(ctx, input.datasetId);
}
