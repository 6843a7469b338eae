import { and, asc, count, eq } from "drizzle-orm";
import { orderedPage } from "../list-page";
import { z } from "zod";
import { dbOf, type Ctx } from "../context";
import { pruningRules } from "../../db/schema";
import { DomainError, notFound, parseInput } from "../../core/errors";
import { MAX_ID_LENGTH } from "../../core/limits";
import { chargeAnswer } from "../answer-budget";
import { requireScope } from "../projects";
import { findDataset } from "./internal";
import { DatasetId } from "./schemas";

/** Rules a dataset has, at most. */
export const MAX_PRUNING_RULES = 20;

export const CreatePruningRuleInput = z.strictObject({
  datasetId: DatasetId,
  /** The text to remove, exactly as the prompts hold it (a shared system prompt, a preamble). */
  text: z.string().min(1, "text must not be empty").max(100_000, "text may be at most 100,000 characters"),
});
export type CreatePruningRuleInput = z.input<typeof CreatePruningRuleInput>;
export const PruningRuleIdInput = z.strictObject({ id: z.string().min(1).max(MAX_ID_LENGTH) });
export const ListPruningRulesInput = z.strictObject({
  datasetId: DatasetId,
  /** A page (list-page.ts): at most `first` (default and ceiling HONE_MAX_PAGE_SIZE), after `after` (a rule's id), in the order they apply. */
  first: z.number().int().min(1, "first must be at least 1").nullish(),
  after: z.string().min(1).max(MAX_ID_LENGTH).nullish(),
});

export type PruningRule = { id: string; datasetId: string; text: string; createdAt: Date };

const toRule = (r: typeof pruningRules.$inferSelect): PruningRule => ({ id: r.id, datasetId: r.datasetId, text: r.text, createdAt: r.createdAt });

async function rulesOf(ctx: Ctx, datasetId: string) {
  await findDataset(ctx, datasetId);
  return dbOf(ctx)
    .select()
    .from(pruningRules)
    .where(and(eq(pruningRules.datasetId, datasetId), eq(pruningRules.projectId, ctx.projectId)))
    .orderBy(asc(pruningRules.id));
}

export async function listPruningRules(ctx: Ctx, raw: z.input<typeof ListPruningRulesInput>): Promise<PruningRule[]> {
  const { datasetId, first, after } = parseInput(ListPruningRulesInput, raw);
  await findDataset(ctx, datasetId);
  const scope = and(eq(pruningRules.datasetId, datasetId), eq(pruningRules.projectId, ctx.projectId))!;
  const page = await orderedPage(ctx, { first, after }, { table: pruningRules, id: pruningRules.id, scope, what: "dataset's pruning rules" });
  const rows = await dbOf(ctx)
    .select()
    .from(pruningRules)
    .where(and(scope, page.after))
    .orderBy(...page.order)
    .limit(page.limit);
  // A dataset's rules may hold 2 MB of text: charged to the answer like any stored content.
  chargeAnswer(
    ctx,
    rows.reduce((n, r) => n + r.text.length, 0),
    "ask for the pruning rules of fewer datasets at once",
  );
  return rows.map(toRule);
}

/** The texts of a dataset's rules, in the order they apply (a fine-tune keeps them when created). */
export async function pruningTextsOf(ctx: Ctx, datasetId: string): Promise<string[]> {
  return (await rulesOf(ctx, datasetId)).map((r) => r.text);
}

/** Adds a rule; fine-tunes created from then on train and serve without its text (earlier ones keep theirs). */
export async function createPruningRule(ctx: Ctx, raw: CreatePruningRuleInput): Promise<PruningRule> {
  requireScope(ctx.actor, "write", "add pruning rules");
  const input = parseInput(CreatePruningRuleInput, raw);
  await findDataset(ctx, input.datasetId);
  const db = dbOf(ctx);
  const [{ n }] = (await db.select({ n: count() }).from(pruningRules).where(eq(pruningRules.datasetId, input.datasetId))) as [{ n: number }];
  if (Number(n) >= MAX_PRUNING_RULES) {
    throw new DomainError("VALIDATION", `A dataset has at most ${MAX_PRUNING_RULES} pruning rules`, {
      issues: [{ message: "too many rules", path: ["text"] }],
    });
  }
  const [row] = await db
    .insert(pruningRules)
    .values({ id: ctx.deps.ids("pruningRule"), projectId: ctx.projectId, datasetId: input.datasetId, text: input.text, createdAt: ctx.deps.clock() })
    .returning();
  return toRule(row!);
}

export async function deletePruningRule(ctx: Ctx, raw: { id: string }): Promise<{ id: string }> {
  requireScope(ctx.actor, "write", "delete pruning rules");
  const { id } = parseInput(PruningRuleIdInput, raw);
  const [gone] = await dbOf(ctx)
    .delete(pruningRules)
    .where(and(eq(pruningRules.id, id), eq(pruningRules.projectId, ctx.projectId)))
    .returning({ id: pruningRules.id });
  if (!gone) throw notFound("Pruning rule", id);
  return gone;
}
