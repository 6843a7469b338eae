import { and, asc, eq } from "drizzle-orm";
import { type Ctx, dbOf } from "../context";
import { maskingRules } from "../../db/schema";
import { notFound, parseInput } from "../../core/errors";
import { liveEntry, readOrKnown } from "../../db/read-or-known";
import { NoInput, verb } from "../verb";
import { canonicalModel, requireFullKey } from "../projects";
import { BUILT_IN_KINDS, createMasker, findSpans, recognizersFor } from "../../lib/masking";
import {
  MASKING_MODES,
  type Masking,
  type MaskingMode,
  type MaskingRule,
  MaskingRuleIdInput,
  type MaskingTest,
  SetMaskingRuleInput,
  TestMaskingInput,
} from "./schemas";

/** How long a process keeps a project's rules before reading them again (a change in this process applies at once). */
const RULES_TTL_MS = 5_000;

const toRule = (r: typeof maskingRules.$inferSelect): MaskingRule => ({
  id: r.id,
  scope: r.scope,
  subject: r.subject || null,
  mode: r.mode,
  kinds: r.kinds ?? null,
  createdAt: r.createdAt,
  updatedAt: r.updatedAt,
});

const readRules = async (ctx: Ctx): Promise<MaskingRule[]> =>
  (
    await dbOf(ctx).select().from(maskingRules).where(eq(maskingRules.projectId, ctx.projectId)).orderBy(asc(maskingRules.scope), asc(maskingRules.subject))
  ).map(toRule);

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
    const recognizers = recognizersFor(ctx.deps.config.maskingPhoneRegion);
    const masker = createMasker({ recognizers, kinds: input.kinds });
    const spans = findSpans(input.text, recognizers, input.kinds ? new Set(input.kinds) : null);
    const masked = masker.maskText(input.text);
    const probe = createMasker({ recognizers, kinds: input.kinds });
    const found = spans.map((s) => ({ ...s, placeholder: probe.maskText(input.text.slice(s.start, s.end)) }));
    return { masked, found, counts: Object.entries(masker.counts()).map(([kind, count]) => ({ kind, count })) };
  },
});

const STRICTNESS: Record<MaskingMode, number> = { off: 0, mask_stored: 1, mask_upstream: 2, block: 3 };

/**
 * How one call is masked: the strictest of the operator's floor (HONE_MASKING_MODE), the project's
 * rule and the rules of its key and model; the kinds of every rule at that mode (null if any masks
 * every kind). The rules come from this process's copy (read again every few seconds); a project
 * whose rules cannot be read, and were never read, gets the operator's floor.
 */
export async function maskingFor(ctx: Ctx, call: { keyId: string | null; models: readonly string[] }): Promise<Masking> {
  const floor = ctx.deps.config.maskingMode;
  const rules = await projectRules(ctx);
  let mode: MaskingMode = floor;
  const applying: MaskingRule[] = [];
  for (const r of rules) {
    const applies = r.scope === "project" || (r.scope === "key" && r.subject === call.keyId) || (r.scope === "model" && call.models.includes(r.subject ?? ""));
    if (!applies) continue;
    applying.push(r);
    if (STRICTNESS[r.mode] > STRICTNESS[mode]) mode = r.mode;
  }
  if (mode === "off") return { mode, kinds: null };
  const at = applying.filter((r) => r.mode === mode);
  const kinds = mode === floor || at.some((r) => r.kinds === null) ? null : [...new Set(at.flatMap((r) => r.kinds ?? BUILT_IN_KINDS))];
  return { mode, kinds };
}

/** maskingFor a call to `model` by the acting key. */
export function maskingOfCall(ctx: Ctx, model: string): Promise<Masking> {
  return maskingFor(ctx, {
    keyId: ctx.actor.type === "apiKey" ? ctx.actor.keyId : null,
    models: [model, canonicalModel(model, ctx.deps.config.modelPrefixes)],
  });
}

async function projectRules(ctx: Ctx): Promise<MaskingRule[]> {
  const now = ctx.deps.clock().getTime();
  const cache = ctx.deps.caches.maskingRules;
  const live = liveEntry(cache, ctx.projectId, RULES_TTL_MS, now, (kept) => read(kept), ctx.deps.logger);
  if (live) return live;
  return read(cache.get(ctx.projectId));
  async function read(kept: { value: MaskingRule[]; expires: number } | undefined): Promise<MaskingRule[]> {
    const got = await readOrKnown(ctx.deps.database, () => readRules(ctx), { value: kept?.value ?? [] });
    if (kept !== undefined && kept.expires > now && cache.get(ctx.projectId) !== kept) return got.value;
    if (cache.size >= 10_000) cache.delete(cache.keys().next().value!);
    cache.set(ctx.projectId, { value: got.value, expires: now + (got.fresh ? RULES_TTL_MS : 1_000) });
    return got.value;
  }
}

export { MASKING_MODES };
