import { dbOf, type Ctx } from "../context";
import { criteria, criterionVersions } from "../../db/schema";
import { parseInput } from "../../core/errors";
import { requireKeyMayCall, resolveModel } from "../projects";
import { CreateCriterionInput, type Criterion } from "./schemas";

/** A new criterion with its version 1. */
export async function createCriterion(ctx: Ctx, raw: CreateCriterionInput): Promise<Criterion> {
  const input = parseInput(CreateCriterionInput, raw);
  requireKeyMayCall(ctx, [input.judgeModel]);
  resolveModel(input.judgeModel, ctx.deps.config.modelPrefixes); // a malformed model string fails here, not at judging time
  const id = ctx.deps.ids("criterion");
  const now = ctx.deps.clock();
  await dbOf(ctx).transaction(async (tx) => {
    await tx.insert(criteria).values({ id, projectId: ctx.projectId, name: input.name, createdAt: now });
    await tx.insert(criterionVersions).values({ criterionId: id, version: 1, judgeModel: input.judgeModel, prompt: input.prompt, createdAt: now });
  });
  return {
    id,
    name: input.name,
    latestVersion: 1,
    createdAt: now,
    versions: [{ version: 1, judgeModel: input.judgeModel, prompt: input.prompt, createdAt: now }],
  };
}
