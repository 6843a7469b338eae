import { and, asc, desc, eq, inArray } from "drizzle-orm";
import { dbOf, type Ctx } from "../context";
import { criteria, criterionVersions } from "../../db/schema";
import { DomainError } from "../../core/errors";
import type { Criterion, ResolvedCriterion } from "./schemas";

export function criterionNotFound(id: string): DomainError {
  return new DomainError("NOT_FOUND", `Criterion ${id} not found`);
}

const INT4_MAX = 2_147_483_647;

/**
 * Splits `<id>@v<N>` (a fixed version) or `<id>` (the latest). A version no criterion can have
 * (0, or beyond the integer column: `@v99999999999`) is a 400, not a query that cannot run.
 */
export function parseCriterionRef(ref: string): { criterionId: string; version: number | null; raw: string } {
  const m = /^(.+)@v(\d+)$/.exec(ref);
  if (!m) return { criterionId: ref, version: null, raw: ref };
  const version = Number(m[2]);
  if (version < 1 || version > INT4_MAX) {
    const message = `criterion version in ${ref.slice(0, 100)} must be between 1 and ${INT4_MAX}`;
    throw new DomainError("VALIDATION", `Invalid criterion id: ${message}`, { issues: [{ message }] });
  }
  return { criterionId: m[1]!, version, raw: ref };
}

/** Resolves a wire criterion id of the project to one version, with the exact not-found messages clients check. */
export async function resolveCriterion(ctx: Ctx, ref: string): Promise<ResolvedCriterion> {
  const { criterionId, version } = parseCriterionRef(ref);
  const db = dbOf(ctx);
  const [crit] = await db
    .select({ id: criteria.id })
    .from(criteria)
    .where(and(eq(criteria.id, criterionId), eq(criteria.projectId, ctx.projectId)));
  if (!crit) throw criterionNotFound(criterionId);
  const where =
    version === null ? eq(criterionVersions.criterionId, crit.id) : and(eq(criterionVersions.criterionId, crit.id), eq(criterionVersions.version, version));
  const [v] = await db.select().from(criterionVersions).where(where).orderBy(desc(criterionVersions.version)).limit(1);
  if (!v) throw new DomainError("NOT_FOUND", `Criterion version ${version} not found for criterion ${criterionId}`);
  return { criterionId: crit.id, version: v.version, judgeModel: v.judgeModel, prompt: v.prompt };
}

function render(value: unknown): string {
  if (value === undefined || value === null) return "none";
  return typeof value === "string" ? value : JSON.stringify(value, null, 2);
}

/**
 * Fills a criterion prompt: each {{variable}} becomes its value (strings as they are, anything
 * else as indented JSON; a missing value as "none"). The output is the judged assistant message:
 * its text content, or the whole message as JSON when it holds tool calls or no text.
 */
export function renderPrompt(prompt: string, vars: { messages?: unknown; tools?: unknown; tool_choice?: unknown; output: Record<string, unknown> }): string {
  const out = vars.output;
  const outputText = typeof out.content === "string" && !(Array.isArray(out.tool_calls) && out.tool_calls.length) ? out.content : JSON.stringify(out, null, 2);
  const values: Record<string, string> = {
    messages: render(vars.messages),
    tools: render(vars.tools),
    tool_choice: render(vars.tool_choice),
    output: outputText,
  };
  return prompt.replace(/\{\{\s*(messages|tools|tool_choice|output)\s*\}\}/g, (_, name: string) => values[name]!);
}

/** The id of a criterion of the project, or NOT_FOUND. */
export async function ownCriterionId(ctx: Ctx, criterionId: string): Promise<string> {
  const [row] = await dbOf(ctx)
    .select({ id: criteria.id })
    .from(criteria)
    .where(and(eq(criteria.id, criterionId), eq(criteria.projectId, ctx.projectId)));
  if (!row) throw criterionNotFound(criterionId);
  return row.id;
}

/** Criterion rows with their versions, oldest version first, in one query. */
export async function withVersions(ctx: Ctx, rows: { id: string; name: string; createdAt: Date }[]): Promise<Criterion[]> {
  if (rows.length === 0) return [];
  const versions = await dbOf(ctx)
    .select()
    .from(criterionVersions)
    .where(
      inArray(
        criterionVersions.criterionId,
        rows.map((r) => r.id),
      ),
    )
    .orderBy(asc(criterionVersions.version));
  return rows.map((r) => {
    const vs = versions.filter((v) => v.criterionId === r.id).map(({ version, judgeModel, prompt, createdAt }) => ({ version, judgeModel, prompt, createdAt }));
    return { ...r, latestVersion: vs.at(-1)?.version ?? 0, versions: vs };
  });
}
