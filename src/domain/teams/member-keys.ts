import { and, asc, eq, isNull } from "drizzle-orm";
import { type BaseCtx, dbOf } from "../context";
import { apiKeys, projects } from "../../db/schema";
import { parseInput } from "../../core/errors";
import { forgetAllApiKeys, asOrganizationActor, requireRole } from "../projects";
import { handOver } from "./hand-over-keys";
import { organizationOf } from "./organization";
import { HandKeysInput } from "./schemas";

// A key made by a person acts for them: it stops when they are removed or disabled. Before that
// happens an owner sees which keys will stop, and may hand them to their projects (service keys).

/** One of a person's own keys, in a project of the organisation. */
export type MemberKey = { id: string; name: string | null; prefix: string; projectId: string; projectName: string; lastUsedAt: Date | null };

/** The keys a person made for themselves in the organisation's projects (not revoked): what stops when they leave. */
export async function listMemberKeys(orgCtx: BaseCtx & { projectId?: string }, userId: string): Promise<MemberKey[]> {
  const ctx = asOrganizationActor(orgCtx);
  requireRole(ctx.actor, "owner", "list a member's API keys");
  const org = await organizationOf(ctx);
  const rows = await dbOf(ctx)
    .select({
      id: apiKeys.id,
      name: apiKeys.name,
      keyHint: apiKeys.keyHint,
      projectId: projects.id,
      projectName: projects.name,
      lastUsedAt: apiKeys.lastUsedAt,
    })
    .from(apiKeys)
    .innerJoin(projects, eq(projects.id, apiKeys.projectId))
    .where(and(eq(projects.organizationId, org), eq(apiKeys.createdBy, userId), eq(apiKeys.owner, "person"), isNull(apiKeys.revokedAt)))
    .orderBy(asc(projects.name), asc(apiKeys.createdAt))
    .limit(1_000);
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    prefix: `hone_sk_…${r.keyHint}`,
    projectId: r.projectId,
    projectName: r.projectName,
    lastUsedAt: r.lastUsedAt,
  }));
}

/**
 * An owner hands a person's keys (all of them in the organisation, or those named) to their
 * projects: they become service keys, which keep working whatever happens to the person.
 */
export async function handKeysToProject(orgCtx: BaseCtx & { projectId?: string }, raw: HandKeysInput): Promise<{ handed: number }> {
  const ctx = asOrganizationActor(orgCtx);
  requireRole(ctx.actor, "owner", "hand a member's API keys to the project");
  const input = parseInput(HandKeysInput, raw);
  const org = await organizationOf(ctx);
  const handed = await handOver(dbOf(ctx), org, input.userId, input.keyIds ?? null);
  forgetAllApiKeys(ctx.deps);
  return { handed };
}
