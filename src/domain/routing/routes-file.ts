import { z } from "zod";
import type { BaseCtx, Ctx } from "../context";
import { DomainError, issuesFromZod } from "../../core/errors";
import { MAX_ID_LENGTH } from "../../core/limits";
import { getProject } from "../projects";
import { checkTargets, findRouteRow, storedConfig } from "./internal";
import { createRoute, updateRoute } from "./manage-routes";
import { CreateRouteInput } from "./schemas";

// HONE_ROUTES_FILE: routes kept in a file (JSON, or YAML by its extension), for teams that keep
// configuration in git. Each entry names its project; the file creates the routes it lists and
// brings them to what it says. Routes it does not list are left alone (removing one from the file
// does not delete it). Loaded at start (a bad file stops the start, naming the field) and on
// SIGHUP (a bad file changes nothing and is logged).

/** A routes file larger than this is refused unread (1,000 routes fit in far less). */
export const MAX_ROUTES_FILE_BYTES = 4 * 1024 * 1024;

const RoutesFile = z.strictObject({
  routes: z.array(CreateRouteInput.extend({ project: z.string().min(1).max(MAX_ID_LENGTH) })).max(1_000, "at most 1,000 routes in the file"),
});
type Entry = z.output<typeof RoutesFile>["routes"][number];

/** The file's text, read as JSON or (for .yaml/.yml) YAML, and checked whole; a 400 names the first wrong field. */
export function parseRoutesFile(path: string, text: string): Entry[] {
  let value: unknown;
  try {
    value = /\.ya?ml$/i.test(path) ? Bun.YAML.parse(text) : JSON.parse(text);
  } catch (err) {
    throw new DomainError(
      "VALIDATION",
      `HONE_ROUTES_FILE ${path} is not valid ${/\.ya?ml$/i.test(path) ? "YAML" : "JSON"}: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  const parsed = RoutesFile.safeParse(value);
  if (!parsed.success) {
    const issues = issuesFromZod(parsed.error);
    throw new DomainError("VALIDATION", `HONE_ROUTES_FILE ${path}: ${issues.map((i) => i.message).join("; ")}`, { issues });
  }
  const seen = new Set<string>();
  for (const [i, r] of parsed.data.routes.entries()) {
    const key = `${r.project}/${r.slug}`;
    if (seen.has(key)) throw new DomainError("VALIDATION", `HONE_ROUTES_FILE ${path}: routes.${i}: route ${r.slug} of project ${r.project} is listed twice`);
    seen.add(key);
  }
  return parsed.data.routes;
}

export type RoutesFileResult = { created: string[]; updated: string[]; unchanged: string[] };

/**
 * Brings the listed routes to what the file says: every entry is checked first (its project exists,
 * its targets are callable), so a bad entry changes nothing at all; then each is created or updated.
 */
export async function applyRoutesFile(base: BaseCtx, path: string, entries: Entry[]): Promise<RoutesFileResult> {
  const ctxOf = (e: Entry): Ctx => ({ ...base, projectId: e.project });
  for (const [i, e] of entries.entries()) {
    const where = `HONE_ROUTES_FILE ${path}: routes.${i} (${e.slug})`;
    try {
      await getProject(base, e.project);
      await checkTargets(ctxOf(e), e.slug, e);
    } catch (err) {
      throw new DomainError("VALIDATION", `${where}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  const result: RoutesFileResult = { created: [], updated: [], unchanged: [] };
  for (const e of entries) {
    const { project: _p, ...input } = e;
    const ctx = ctxOf(e);
    const row = await findRouteRow(ctx, e.slug);
    const name = `${e.project}/${e.slug}`;
    if (!row) {
      await createRoute(ctx, input);
      result.created.push(name);
    } else if (JSON.stringify(row.config) !== JSON.stringify(storedConfig(e))) {
      await updateRoute(ctx, input);
      result.updated.push(name);
    } else result.unchanged.push(name);
  }
  return result;
}
