import { and, eq, isNull, sql } from "drizzle-orm";
import type { BaseCtx } from "../context";
import { withTx } from "../context";
import { apiKeys, projects } from "../../db/schema";
import { createApiKey } from "./create-api-key";
import { createProject } from "./create-project";

const DEFAULT_PROJECT_NAME = "default";
/** The bootstrap key's name in the key list, so people can tell it from their own named keys. */
const BOOTSTRAP_KEY_NAME = "bootstrap";

/**
 * First-start setup. With no project at all, creates `default` and returns its new key so the
 * caller can print it once. A configured bootstrap key is registered for `default` (created if
 * missing) on every start; that is idempotent. Serialised by an advisory lock so several
 * processes starting together on one Postgres create one project. The bootstrap key is named
 * "bootstrap" (one registered unnamed by an older version gets the name; a rename is kept).
 */
export async function bootstrapProjects(ctx: BaseCtx, input: { bootstrapApiKey?: string }): Promise<{ createdProjectId?: string; newApiKey?: string }> {
  return withTx(ctx, async (inTx, tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(7263845002)`);
    const [defaultProject] = await tx
      .select({ id: projects.id })
      .from(projects)
      .where(sql`${projects.name} = ${DEFAULT_PROJECT_NAME}`)
      .orderBy(projects.id)
      .limit(1);
    if (input.bootstrapApiKey) {
      if (defaultProject) {
        const key = await createApiKey(inTx, { projectId: defaultProject.id, apiKey: input.bootstrapApiKey, name: BOOTSTRAP_KEY_NAME });
        if (key.key.name === null) {
          await tx
            .update(apiKeys)
            .set({ name: BOOTSTRAP_KEY_NAME })
            .where(and(eq(apiKeys.id, key.keyId), isNull(apiKeys.name)));
        }
        return {};
      }
      const created = await createProject(inTx, { name: DEFAULT_PROJECT_NAME, apiKey: input.bootstrapApiKey, keyName: BOOTSTRAP_KEY_NAME });
      return { createdProjectId: created.projectId };
    }
    const [anyProject] = await tx.select({ id: projects.id }).from(projects).limit(1);
    if (anyProject) return {};
    const created = await createProject(inTx, { name: DEFAULT_PROJECT_NAME, keyName: BOOTSTRAP_KEY_NAME });
    return { createdProjectId: created.projectId, newApiKey: created.apiKey };
  });
}
