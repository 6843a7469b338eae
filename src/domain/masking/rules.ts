import { and, eq } from "drizzle-orm";
import { type Ctx, dbOf } from "../context";
import { maskingRules } from "../../db/schema";
import { notFound, parseInput } from "../../core/errors";
import { NoInput, verb } from "../verb";
import { requireFullKey } from "../projects";
import { BUILT_IN_KINDS, createMasker, findSpans } from "../../lib/masking";
import { checkKinds, projectMasking, readRules, toRule } from "./effective";
import { ANALYZER_WARNING, analyze, analyzerKinds, hasAnalyzer } from "./analyzer";
import { MASKING_MODES, type MaskingRule, MaskingRuleIdInput, type MaskingTest, SetMaskingRuleInput, TestMaskingInput } from "./schemas";

export const listMaskingRules = verb({
  name: "maskingRules",
  description: "The project's masking rules: the project's own, and those narrowing it for a key or a model (a call is masked by the strictest that applies)",
  kind: "query",
  role: "viewer",
  input: NoInput,
  run: (ctx: Ctx) => readRules(ctx),
});

export const setMaskingRule = verb({
  name: "setMaskingRule",
  description: "Sets the project's masking rule, or a key's or a model's (off, mask_stored, mask_upstream, block), and the kinds it masks",
  kind: "mutation",
  role: "admin",
  input: SetMaskingRuleInput,
  run: async (ctx: Ctx, raw: SetMaskingRuleInput): Promise<MaskingRule> => {
    requireFullKey(ctx.actor, "change masking rules");
    const input = parseInput(SetMaskingRuleInput, raw);
    await checkKinds(ctx, input.kinds, ["kinds"]);
    const now = ctx.deps.clock();
    const scope = input.scope ?? "project";
    const values = { mode: input.mode, kinds: input.kinds ?? null, updatedAt: now };
    const [row] = await dbOf(ctx)
      .insert(maskingRules)
      .values({ id: ctx.deps.ids("maskingRule"), projectId: ctx.projectId, scope, subject: input.subject ?? "", ...values, createdAt: now })
      .onConflictDoUpdate({ target: [maskingRules.projectId, maskingRules.scope, maskingRules.subject], set: values })
      .returning();
    ctx.deps.caches.maskingRules.delete(ctx.projectId);
    return toRule(row!);
  },
});

export const deleteMaskingRule = verb({
  name: "deleteMaskingRule",
  description: "Deletes a masking rule (the project's own: masking is off unless the operator's HONE_MASKING_MODE says otherwise); returns true",
  kind: "mutation",
  role: "admin",
  input: MaskingRuleIdInput,
  run: async (ctx: Ctx, raw: MaskingRuleIdInput): Promise<{ deleted: true }> => {
    requireFullKey(ctx.actor, "change masking rules");
    const input = parseInput(MaskingRuleIdInput, raw);
    const gone = await dbOf(ctx)
      .delete(maskingRules)
      .where(and(eq(maskingRules.id, input.id), eq(maskingRules.projectId, ctx.projectId)))
      .returning({ id: maskingRules.id });
    if (!gone.length) throw notFound("Masking rule", input.id);
    ctx.deps.caches.maskingRules.delete(ctx.projectId);
    return { deleted: true };
  },
});

export const testMasking = verb({
  name: "testMasking",
  description: "What the recognizers find in a text and how it would be stored: each value's kind, place and placeholder (nothing is stored)",
  kind: "query",
  role: "viewer",
  input: TestMaskingInput,
  run: async (ctx: Ctx, raw: TestMaskingInput): Promise<MaskingTest> => {
    const input = parseInput(TestMaskingInput, raw);
    await checkKinds(ctx, input.kinds, ["kinds"]);
    const { recognizers } = await projectMasking(ctx);
    // The external analyzer (if any) reads the text too: a failure is said, never a failed try.
    const analysis = await analyze(ctx, { mode: "mask_stored", kinds: input.kinds ?? null }, [input.text]);
    const known = analysis.spans;
    const masker = createMasker({ recognizers, kinds: input.kinds, known });
    const spans = findSpans(input.text, recognizers, input.kinds ? new Set(input.kinds) : null, known.get(input.text));
    const masked = masker.maskText(input.text);
    // Each value's placeholder, numbered as in `masked` (each value known as a whole to the probe).
    const whole = new Map(spans.map((s) => [input.text.slice(s.start, s.end), [{ kind: s.kind, start: 0, end: s.end - s.start }]]));
    const probe = createMasker({ recognizers, kinds: input.kinds, known: whole });
    const found = spans.map((s) => ({ ...s, placeholder: probe.maskText(input.text.slice(s.start, s.end)) }));
    return {
      masked,
      found,
      counts: Object.entries(masker.counts()).map(([kind, count]) => ({ kind, count })),
      analyzer: hasAnalyzer(ctx) ? (analysis.failure ? ANALYZER_WARNING[analysis.failure] : "ok") : null,
    };
  },
});

export { MASKING_MODES };

/** A kind a rule may name: where it comes from, and what it finds in words. */
export type MaskingKind = { kind: string; source: "built-in" | "analyzer" | "project"; description: string };

export const listMaskingKinds = verb({
  name: "maskingKinds",
  description: "Every kind a masking rule may name: the built-in recognizers, the operator's external analyzer's entities, and the project's own recognizers",
  kind: "query",
  role: "viewer",
  input: NoInput,
  run: async (ctx: Ctx): Promise<MaskingKind[]> => {
    const { recognizers } = await projectMasking(ctx);
    const builtIn = new Set(BUILT_IN_KINDS);
    const out: MaskingKind[] = recognizers.map((r) => ({ kind: r.kind, source: builtIn.has(r.kind) ? "built-in" : "project", description: r.description }));
    for (const kind of analyzerKinds(ctx.deps.config)) {
      out.push({ kind, source: "analyzer", description: `${kind.toLowerCase().replace(/_/g, " ")} entities the operator's external analyzer finds` });
    }
    return out;
  },
});
