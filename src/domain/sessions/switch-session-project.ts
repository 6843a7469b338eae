import { and, asc, eq } from "drizzle-orm";
import { consoleSessions, memberships, projects } from "../../db/schema";
import type { Deps } from "../deps";
import { DomainError, parseInput } from "../../core/errors";
import { getProject } from "../projects";
import { systemCtx } from "../context";
import { SwitchProjectInput, type ResolvedSession } from "./schemas";

/**
 * An admin session moves to another project; a person's session to another project of its
 * organisation (another organisation's project is unknown to it: 404); a key's session is bound to
 * its key's project.
 */
export async function switchSessionProject(deps: Deps, session: ResolvedSession, raw: SwitchProjectInput): Promise<{ id: string; name: string }> {
  const input = parseInput(SwitchProjectInput, raw);
  if (session.user) {
    const [project] = await deps.database.db
      .select({ id: projects.id, name: projects.name })
      .from(projects)
      .where(and(eq(projects.id, input.projectId), eq(projects.organizationId, session.organization?.id ?? "")));
    if (!project) throw new DomainError("NOT_FOUND", `Project not found: ${input.projectId}`);
    await deps.database.db.update(consoleSessions).set({ projectId: project.id }).where(eq(consoleSessions.id, session.id));
    return project;
  }
  if (!session.admin) {
    throw new DomainError("FORBIDDEN", "Only an admin session may switch projects; a key's session stays in its key's project");
  }
  const project = await getProject(systemCtx(deps, "console"), input.projectId);
  await deps.database.db.update(consoleSessions).set({ projectId: project.id }).where(eq(consoleSessions.id, session.id));
  return { id: project.id, name: project.name };
}

/** A person's session moves to another of their organisations, on its oldest project. */
export async function switchSessionOrganization(deps: Deps, session: ResolvedSession, organizationId: string): Promise<void> {
  if (!session.user) throw new DomainError("FORBIDDEN", "Only a person's session has organisations to switch between");
  const db = deps.database.db;
  const [member] = await db
    .select({ organizationId: memberships.organizationId })
    .from(memberships)
    .where(and(eq(memberships.userId, session.user.id), eq(memberships.organizationId, organizationId)));
  if (!member) throw new DomainError("NOT_FOUND", `Organisation not found: ${organizationId}`);
  const [project] = await db
    .select({ id: projects.id })
    .from(projects)
    .where(eq(projects.organizationId, organizationId))
    .orderBy(asc(projects.createdAt), asc(projects.id))
    .limit(1);
  await db
    .update(consoleSessions)
    .set({ organizationId, projectId: project?.id ?? null })
    .where(eq(consoleSessions.id, session.id));
}
