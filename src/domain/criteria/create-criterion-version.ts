import { and, desc, eq } from "drizzle-orm";
import { dbOf, type Ctx } from "../context";
import { criteria, criterionVersions } from "../../db/schema";
import { parseInput } from "../../core/errors";
import { requireKeyMayCall, resolveModel } from "../projects";
import { criterionNotFound } from "./internal";
import { CreateCriterionVersionInput, type CriterionVersion } from "./schemas";

/** Version N+1; what is not given is carried over from the latest version. */
export async function createCriterionVersion(ctx: Ctx, raw: CreateCriterionVersionInput): Promise<CriterionVersion> {
  const input = parseInput(CreateCriterionVersionInput, raw);
  requireKeyMayCall(ctx, [input.judgeModel]);
  if (input.judgeModel) resolveModel(input.judgeModel, ctx.deps.config.modelPrefixes);
  return dbOf(ctx).transaction(async (tx) => {
    // The row lock serialises concurrent new versions of one criterion.
    const [crit] = await tx
      .select({ id: criteria.id })
      .from(criteria)
      .where(and(eq(criteria.id, input.criterionId), eq(criteria.projectId, ctx.projectId)))
      .for("update");
    if (!crit) throw criterionNotFound(input.criterionId);
    const [latest] = await tx
      .select()
      .from(criterionVersions)
      .where(eq(criterionVersions.criterionId, crit.id))
      .orderBy(desc(criterionVersions.version))
      .limit(1);
    const next = {
      criterionId: crit.id,
      version: (latest?.version ?? 0) + 1,
      judgeModel: input.judgeModel ?? latest!.judgeModel,
      prompt: input.prompt ?? latest!.prompt,
      createdAt: ctx.deps.clock(),
    };
    await tx.insert(criterionVersions).values(next);
    return { version: next.version, judgeModel: next.judgeModel, prompt: next.prompt, createdAt: next.createdAt };
  });
}
