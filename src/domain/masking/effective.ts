import { asc, eq } from "drizzle-orm";
import { type Ctx, dbOf } from "../context";
import { maskingRecognizers, maskingRules } from "../../db/schema";
import { DomainError } from "../../core/errors";
import { liveEntry, readOrKnown } from "../../db/read-or-known";
import { BUILT_IN_KINDS, patternRecognizer, type Recognizer, recognizersFor } from "../../lib/masking";
import { canonicalModel } from "../projects";
import { analyzerKinds } from "./analyzer";
import type { Masking, MaskingMode, MaskingRule } from "./schemas";

export const toRule = (r: typeof maskingRules.$inferSelect): MaskingRule => ({
  id: r.id,
  scope: r.scope,
  subject: r.subject || null,
  mode: r.mode,
  kinds: r.kinds ?? null,
  createdAt: r.createdAt,
  updatedAt: r.updatedAt,
});

export const readRules = async (ctx: Ctx): Promise<MaskingRule[]> =>
  (
    await dbOf(ctx).select().from(maskingRules).where(eq(maskingRules.projectId, ctx.projectId)).orderBy(asc(maskingRules.scope), asc(maskingRules.subject))
  ).map(toRule);

/** How long a process keeps a project's rules and recognizers before reading them again (a change in this process applies at once). */
const TTL_MS = 5_000;

/** A project's rules, and the recognizers its calls are masked with: the built-in ones, its own before the entropy rule. */
export type ProjectMasking = { rules: MaskingRule[]; recognizers: readonly Recognizer[]; kinds: ReadonlySet<string> };

const STRICTNESS: Record<MaskingMode, number> = { off: 0, mask_stored: 1, mask_upstream: 2, block: 3 };

/**
 * How one call is masked: the strictest of the operator's floor (HONE_MASKING_MODE), the project's
 * rule and the rules of its key and model; the kinds of every rule at that mode (null if any masks
 * every kind). The rules come from this process's copy (read again every few seconds); a project
 * whose rules cannot be read, and were never read, gets the operator's floor.
 */
export async function maskingFor(ctx: Ctx, call: { keyId: string | null; models: readonly string[] }): Promise<Masking> {
  const floor = ctx.deps.config.maskingMode;
  const { rules, recognizers } = await projectMasking(ctx);
  let mode: MaskingMode = floor;
  const applying: MaskingRule[] = [];
  for (const r of rules) {
    const applies = r.scope === "project" || (r.scope === "key" && r.subject === call.keyId) || (r.scope === "model" && call.models.includes(r.subject ?? ""));
    if (!applies) continue;
    applying.push(r);
    if (STRICTNESS[r.mode] > STRICTNESS[mode]) mode = r.mode;
  }
  if (mode === "off") return { mode, kinds: null, recognizers };
  const at = applying.filter((r) => r.mode === mode);
  const kinds = mode === floor || at.some((r) => r.kinds === null) ? null : [...new Set(at.flatMap((r) => r.kinds ?? BUILT_IN_KINDS))];
  return { mode, kinds, recognizers };
}

/** maskingFor a call to `model` by the acting key. */
export function maskingOfCall(ctx: Ctx, model: string): Promise<Masking> {
  return maskingFor(ctx, {
    keyId: ctx.actor.type === "apiKey" ? ctx.actor.keyId : null,
    models: [model, canonicalModel(model, ctx.deps.config.modelPrefixes)],
  });
}

/** The project's rules and recognizers, as this process last read them (every few seconds). */
export async function projectMasking(ctx: Ctx): Promise<ProjectMasking> {
  const now = ctx.deps.clock().getTime();
  const cache = ctx.deps.caches.maskingRules;
  const live = liveEntry(cache, ctx.projectId, TTL_MS, now, (kept) => read(kept), ctx.deps.logger);
  if (live) return live;
  return read(cache.get(ctx.projectId));
  async function read(kept: { value: ProjectMasking; expires: number } | undefined): Promise<ProjectMasking> {
    const known = kept?.value ?? of([], []);
    const got = await readOrKnown(
      ctx.deps.database,
      async () => {
        const [rules, own] = [await readRules(ctx), await readOwnRecognizers(ctx)];
        return of(rules, own);
      },
      { value: known },
    );
    if (kept !== undefined && kept.expires > now && cache.get(ctx.projectId) !== kept) return got.value;
    if (cache.size >= 10_000) cache.delete(cache.keys().next().value!);
    cache.set(ctx.projectId, { value: got.value, expires: now + (got.fresh ? TTL_MS : 1_000) });
    return got.value;
  }
  function of(rules: MaskingRule[], own: { kind: string; pattern: string }[]): ProjectMasking {
    const builtIn = recognizersFor(ctx.deps.config.maskingPhoneRegion);
    const external = analyzerKinds(ctx.deps.config);
    if (!own.length) return { rules, recognizers: builtIn, kinds: new Set([...BUILT_IN_KINDS, ...external]) };
    // The project's own go after the formats it cannot improve on and before the entropy rule (TOKEN).
    const mine = own.map((r) => patternRecognizer(r.kind, r.pattern));
    const recognizers = [...builtIn.slice(0, -1), ...mine, builtIn.at(-1)!];
    return { rules, recognizers, kinds: new Set([...BUILT_IN_KINDS, ...external, ...own.map((r) => r.kind)]) };
  }
}

const readOwnRecognizers = async (ctx: Ctx) =>
  dbOf(ctx)
    .select({ kind: maskingRecognizers.kind, pattern: maskingRecognizers.pattern })
    .from(maskingRecognizers)
    .where(eq(maskingRecognizers.projectId, ctx.projectId))
    .orderBy(asc(maskingRecognizers.kind));

/** Kinds a rule or a try names: each a built-in kind or one of the project's own (a 400 naming the others). */
export async function checkKinds(ctx: Ctx, kinds: readonly string[] | null | undefined, path: string[]): Promise<void> {
  if (!kinds?.length) return;
  const known = (await projectMasking(ctx)).kinds;
  const unknown = kinds.filter((k) => !known.has(k));
  if (!unknown.length) return;
  const message = `kinds: ${unknown.join(", ")} ${unknown.length === 1 ? "is" : "are"} neither a built-in kind nor one of the project's own recognizers${ctx.deps.config.maskingAnalyzer ? " (nor one the analyzer finds)" : ""}`;
  throw new DomainError("VALIDATION", message, { issues: [{ message, path }] });
}
