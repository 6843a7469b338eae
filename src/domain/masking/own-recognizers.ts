import { and, asc, count, eq } from "drizzle-orm";
import { check } from "recheck";
import { z } from "zod";
import { type Ctx, dbOf } from "../context";
import { maskingRecognizers } from "../../db/schema";
import { DomainError, notFound, parseInput } from "../../core/errors";
import { BUILT_IN_KINDS } from "../../lib/masking";
import { requireFullKey } from "../projects";
import { NoInput, verb } from "../verb";

// A project's own recognizers: a kind's name and a regular expression for what the built-in ones
// cannot know (its customer numbers, its internal ids). A pattern runs on every masked call, so it
// is admitted only when the ReDoS checker (recheck, from automata theory, falling back to fuzzing)
// shows it safe, it matches nothing empty, and it finds what it is for in a sample given with it.

/** A project's own recognizers at most (each runs over every masked text). */
export const MAX_OWN_RECOGNIZERS = 20;
/** The longest the checker may think about one pattern. */
const CHECK_TIMEOUT_MS = 3_000;

export type OwnRecognizer = { id: string; kind: string; pattern: string; createdAt: Date; updatedAt: Date };

export const SetMaskingRecognizerInput = z.strictObject({
  /** The placeholder's name: <KIND_1>. */
  kind: z
    .string()
    .regex(/^[A-Z][A-Z0-9_]{1,30}$/, "kind is a name in capitals, digits and underscores (2 to 31 characters), such as CUSTOMER_ID")
    .refine((k) => !BUILT_IN_KINDS.includes(k), "kind is the name of a built-in kind: choose another"),
  /** A JavaScript regular expression (without slashes or flags; it is run with g). */
  pattern: z.string().min(1, "pattern must not be empty").max(500, "pattern may be at most 500 characters"),
  /** A text holding at least one value the pattern is for: it must find it. */
  sample: z.string().min(1, "give a sample the pattern must find a value in").max(2_000, "sample may be at most 2,000 characters"),
});
export type SetMaskingRecognizerInput = z.input<typeof SetMaskingRecognizerInput>;

const IdInput = z.strictObject({ id: z.string().min(1).max(100) });

const refuse = (path: string, message: string) => new DomainError("VALIDATION", message, { issues: [{ message, path: [path] }] });

/** The pattern, admitted or a 400 saying why: it compiles, the checker shows it safe, it matches nothing empty and finds a value in the sample. */
export async function checkPattern(pattern: string, sample: string): Promise<{ found: string[] }> {
  let re: RegExp;
  try {
    re = new RegExp(pattern, "g");
  } catch (err) {
    throw refuse("pattern", `pattern is not a regular expression: ${err instanceof Error ? err.message : String(err)}`);
  }
  // Off the serving thread (recheck's own worker), bounded in time.
  let verdict: Awaited<ReturnType<typeof check>>;
  try {
    verdict = await check(pattern, "g", { timeout: CHECK_TIMEOUT_MS });
  } catch (err) {
    throw refuse("pattern", `pattern could not be checked for catastrophic backtracking: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (verdict.status === "vulnerable") {
    const attack = verdict.attack?.string ? ` (try ${JSON.stringify(verdict.attack.string.slice(0, 40))}…)` : "";
    throw refuse(
      "pattern",
      `pattern can take ${verdict.complexity.type} time on some texts${attack}: a call could hang on it. Avoid nested or overlapping repetition such as (a+)+ or (\\w|\\d)*`,
    );
  }
  if (verdict.status !== "safe") throw refuse("pattern", "pattern could not be shown safe from catastrophic backtracking in time: make it simpler");
  if (re.test("")) throw refuse("pattern", "pattern matches the empty text: it must match at least one character");
  const found = [...sample.matchAll(re)].map((m) => m[0]).filter((m) => m.length > 0);
  if (!found.length) throw refuse("sample", "the pattern finds nothing in the sample: give a sample holding a value it is for");
  return { found };
}

const toOwn = (r: typeof maskingRecognizers.$inferSelect): OwnRecognizer => ({
  id: r.id,
  kind: r.kind,
  pattern: r.pattern,
  createdAt: r.createdAt,
  updatedAt: r.updatedAt,
});

export const listMaskingRecognizers = verb({
  name: "maskingRecognizers",
  description: "The project's own masking recognizers (a kind's name and a pattern), beside the built-in ones",
  kind: "query",
  role: "viewer",
  input: NoInput,
  run: async (ctx: Ctx): Promise<OwnRecognizer[]> =>
    (await dbOf(ctx).select().from(maskingRecognizers).where(eq(maskingRecognizers.projectId, ctx.projectId)).orderBy(asc(maskingRecognizers.kind))).map(toOwn),
});

export const setMaskingRecognizer = verb({
  name: "setMaskingRecognizer",
  description:
    "Adds or replaces one of the project's own masking recognizers: its kind's name and a regular expression, admitted when shown safe from catastrophic backtracking and finding a value in the sample",
  kind: "mutation",
  role: "admin",
  input: SetMaskingRecognizerInput,
  run: async (ctx: Ctx, raw: SetMaskingRecognizerInput): Promise<OwnRecognizer & { found: string[] }> => {
    requireFullKey(ctx.actor, "change masking recognizers");
    const input = parseInput(SetMaskingRecognizerInput, raw);
    const { found } = await checkPattern(input.pattern, input.sample);
    const db = dbOf(ctx);
    const [n] = await db.select({ n: count() }).from(maskingRecognizers).where(eq(maskingRecognizers.projectId, ctx.projectId));
    const [same] = await db
      .select({ id: maskingRecognizers.id })
      .from(maskingRecognizers)
      .where(and(eq(maskingRecognizers.projectId, ctx.projectId), eq(maskingRecognizers.kind, input.kind)));
    if (!same && (n?.n ?? 0) >= MAX_OWN_RECOGNIZERS) {
      throw refuse("kind", `A project may have at most ${MAX_OWN_RECOGNIZERS} recognizers of its own; delete one first`);
    }
    const now = ctx.deps.clock();
    const [row] = await db
      .insert(maskingRecognizers)
      .values({ id: ctx.deps.ids("maskingRecognizer"), projectId: ctx.projectId, kind: input.kind, pattern: input.pattern, createdAt: now, updatedAt: now })
      .onConflictDoUpdate({ target: [maskingRecognizers.projectId, maskingRecognizers.kind], set: { pattern: input.pattern, updatedAt: now } })
      .returning();
    ctx.deps.caches.maskingRules.delete(ctx.projectId);
    return { ...toOwn(row!), found };
  },
});

export const deleteMaskingRecognizer = verb({
  name: "deleteMaskingRecognizer",
  description: "Deletes one of the project's own masking recognizers; returns true",
  kind: "mutation",
  role: "admin",
  input: IdInput,
  run: async (ctx: Ctx, raw: z.input<typeof IdInput>): Promise<{ deleted: true }> => {
    requireFullKey(ctx.actor, "change masking recognizers");
    const input = parseInput(IdInput, raw);
    const gone = await dbOf(ctx)
      .delete(maskingRecognizers)
      .where(and(eq(maskingRecognizers.id, input.id), eq(maskingRecognizers.projectId, ctx.projectId)))
      .returning({ id: maskingRecognizers.id });
    if (!gone.length) throw notFound("Masking recognizer", input.id);
    ctx.deps.caches.maskingRules.delete(ctx.projectId);
    return { deleted: true };
  },
});
