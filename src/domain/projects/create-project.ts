import type { BaseCtx } from "../context";
import { withTx } from "../context";
import { asc } from "drizzle-orm";
import { organizations, projects } from "../../db/schema";
import { parseInput } from "../../core/errors";
import { createApiKey } from "./create-api-key";
import { CreateProjectInput, type CreatedProject } from "./schemas";

/** Creates a project with its first API key, in one transaction. */
export async function createProject(
  ctx: BaseCtx,
  raw: CreateProjectInput & { apiKey?: string; projectId?: string; keyName?: string; organizationId?: string | null },
): Promise<CreatedProject> {
  // The transport's input is the name; the rest is Hone's own (bootstrap, the CLI, an organisation's new project).
  const input = parseInput(CreateProjectInput, { name: raw.name });
  return withTx(ctx, async (inTx, tx) => {
    const projectId = raw.projectId ?? ctx.deps.ids("project");
    // The admin token's projects join the oldest organisation (none before the first owner).
    const organizationId =
      raw.organizationId !== undefined
        ? raw.organizationId
        : ((await tx.select({ id: organizations.id }).from(organizations).orderBy(asc(organizations.createdAt)).limit(1))[0]?.id ?? null);
    await tx.insert(projects).values({ id: projectId, name: input.name, organizationId });
    const key = await createApiKey(inTx, { projectId, apiKey: raw.apiKey, name: raw.keyName });
    return { projectId, name: input.name, apiKey: key.apiKey };
  });
}
