import { sql } from "drizzle-orm";
import type { BaseCtx } from "../../context";
import { dbOf } from "../../context";
import { projects } from "../../db/schema";
import { createApiKey } from "./create-api-key";
import { createProject } from "./create-project";

const DEFAULT_PROJECT_NAME = "default";

/**
 * First-start setup. With no project at all, creates `default` and returns its new key so the
 * caller can print it once. A configured bootstrap key is registered for `default` (created if
 * missing) on every start; that is idempotent. Serialised by an advisory lock so several
 * processes starting together on one Postgres create one project.
 */
export async function bootstrapProjects(ctx: BaseCtx, input: { bootstrapApiKey?: string }): Promise<{ createdProjectId?: string; newApiKey?: string }> {
  return dbOf(ctx).transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(7263845002)`);
    const [defaultProject] = await tx
      .select({ id: projects.id })
      .from(projects)
      .where(sql`${projects.name} = ${DEFAULT_PROJECT_NAME}`)
      .orderBy(projects.id)
      .limit(1);
    const inner = { ...ctx, tx };
    if (input.bootstrapApiKey) {
      if (defaultProject) {
        await createApiKey(inner, { projectId: defaultProject.id, apiKey: input.bootstrapApiKey });
        return {};
      }
      const created = await createProject(inner, { name: DEFAULT_PROJECT_NAME, apiKey: input.bootstrapApiKey });
      return { createdProjectId: created.projectId };
    }
    const [anyProject] = await tx.select({ id: projects.id }).from(projects).limit(1);
    if (anyProject) return {};
    const created = await createProject(inner, { name: DEFAULT_PROJECT_NAME });
    return { createdProjectId: created.projectId, newApiKey: created.apiKey };
  });
}
