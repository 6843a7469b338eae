import { eq } from "drizzle-orm";
import { consoleSessions } from "../../db/schema";
import type { Deps } from "../../deps";
import { DomainError, parseInput } from "../../errors";
import { getProject } from "../projects";
import { systemCtx } from "../../context";
import { SwitchProjectInput, type ResolvedSession } from "./schemas";

/** An admin session moves to another project; a key's session is bound to its key's project. */
export async function switchSessionProject(deps: Deps, session: ResolvedSession, raw: SwitchProjectInput): Promise<{ id: string; name: string }> {
  const input = parseInput(SwitchProjectInput, raw);
  if (!session.admin) {
    throw new DomainError("FORBIDDEN", "Only an admin session may switch projects; a key's session stays in its key's project");
  }
  const project = await getProject(systemCtx(deps, "console"), input.projectId);
  await deps.database.db.update(consoleSessions).set({ projectId: project.id }).where(eq(consoleSessions.id, session.id));
  return { id: project.id, name: project.name };
}
