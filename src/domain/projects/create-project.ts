import type { BaseCtx } from "../../context";
import { withTx } from "../../context";
import { projects } from "../../db/schema";
import { parseInput } from "../../errors";
import { createApiKey } from "./create-api-key";
import { CreateProjectInput, type CreatedProject } from "./schemas";

/** Creates a project with its first API key, in one transaction. */
export async function createProject(
  ctx: BaseCtx,
  raw: CreateProjectInput & { apiKey?: string; projectId?: string; keyName?: string },
): Promise<CreatedProject> {
  const input = parseInput(CreateProjectInput, raw);
  return withTx(ctx, async (inTx, tx) => {
    const projectId = raw.projectId ?? ctx.deps.ids("project");
    await tx.insert(projects).values({ id: projectId, name: input.name });
    const key = await createApiKey(inTx, { projectId, apiKey: raw.apiKey, name: raw.keyName });
    return { projectId, name: input.name, apiKey: key.apiKey };
  });
}
