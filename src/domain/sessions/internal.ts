import { and, eq, gt, isNull, or, sql } from "drizzle-orm";
import type { Queryable } from "../../db/client";
import { apiKeys, consoleSessions, memberships, organizations, projectRoles, projects, users } from "../../db/schema";
import type { Role } from "../../core/key-scope";
import type { Deps } from "../deps";
import { randomBase62 } from "../../lib/ids";
import { apiKeyInfoColumns, toApiKeyInfo } from "../projects";
import type { ResolvedSession } from "./schemas";

export const SESSION_TOKEN_PREFIX = "hone_ses_";

export const newSessionToken = () => SESSION_TOKEN_PREFIX + randomBase62(43);
export const hashSessionToken = (token: string) => Bun.SHA256.hash(token, "hex");

const RANK: Record<Role, number> = { viewer: 0, member: 1, admin: 2, owner: 3 };

/** A person's role in a project: the organisation role, narrowed by the project's when it is lower. */
export const effectiveRole = (orgRole: Role, projectRole: Role | null): Role => (projectRole && RANK[projectRole] < RANK[orgRole] ? projectRole : orgRole);

/**
 * The live session with this token hash: not revoked, within both limits, and (for a key's
 * session) its key not revoked; (for a person's) the person enabled and still a member of the
 * session's organisation. One indexed read joined to primary keys.
 */
export async function findLiveSession(db: Queryable, deps: Deps, tokenHash: string): Promise<ResolvedSession | null> {
  const now = deps.clock();
  const idleSince = new Date(now.getTime() - deps.config.sessionIdleMs);
  const [row] = await db
    .select({
      id: consoleSessions.id,
      isAdmin: consoleSessions.isAdmin,
      projectId: consoleSessions.projectId,
      projectName: projects.name,
      projectOrg: projects.organizationId,
      userId: users.id,
      userEmail: users.email,
      userName: users.name,
      organizationId: consoleSessions.organizationId,
      organizationName: organizations.name,
      orgRole: memberships.role,
      projectRole: projectRoles.role,
      apiKeyId: consoleSessions.apiKeyId,
      key: apiKeyInfoColumns,
      // A person's key acts at most with its maker's role now (the organisation's, narrowed in the project).
      makerOrgRole: sql<Role | null>`(select km.role from ${memberships} km where km.user_id = ${apiKeys.createdBy} and km.organization_id = ${projects.organizationId})`,
      makerProjectRole: sql<Role | null>`(select kr.role from ${projectRoles} kr where kr.user_id = ${apiKeys.createdBy} and kr.project_id = ${projects.id})`,
      createdAt: consoleSessions.createdAt,
      lastSeenAt: consoleSessions.lastSeenAt,
      expiresAt: consoleSessions.expiresAt,
    })
    .from(consoleSessions)
    .leftJoin(projects, eq(projects.id, consoleSessions.projectId))
    .leftJoin(apiKeys, eq(apiKeys.id, consoleSessions.apiKeyId))
    .leftJoin(users, eq(users.id, consoleSessions.userId))
    .leftJoin(organizations, eq(organizations.id, consoleSessions.organizationId))
    .leftJoin(memberships, and(eq(memberships.organizationId, consoleSessions.organizationId), eq(memberships.userId, consoleSessions.userId)))
    .leftJoin(projectRoles, and(eq(projectRoles.projectId, consoleSessions.projectId), eq(projectRoles.userId, consoleSessions.userId)))
    .where(
      and(
        eq(consoleSessions.tokenHash, tokenHash),
        isNull(consoleSessions.revokedAt),
        gt(consoleSessions.expiresAt, now),
        gt(consoleSessions.lastSeenAt, idleSince),
        // A key's session lives only as long as its key (and its project): not revoked, not expired.
        or(
          eq(consoleSessions.isAdmin, true),
          // A person's session lives while the person is enabled and a member of its organisation.
          and(sql`${users.id} is not null`, isNull(users.disabledAt), sql`${memberships.role} is not null`),
          and(
            isNull(apiKeys.revokedAt),
            or(isNull(apiKeys.expiresAt), gt(apiKeys.expiresAt, now)),
            sql`${apiKeys.id} is not null`,
            sql`${projects.id} is not null`,
            // A person's key (and so its session) stops when its maker is removed or disabled.
            sql`(${apiKeys.owner} <> 'person' or exists (select 1 from ${memberships} km join ${users} ku on ku.id = km.user_id
              where km.user_id = ${apiKeys.createdBy} and km.organization_id = ${projects.organizationId} and ku.disabled_at is null))`,
          ),
        ),
      ),
    );
  if (!row) return null;
  if (row.userId && row.orgRole) {
    // A person acts only on a project of their organisation.
    const inOrg = row.projectName !== null && row.projectOrg === row.organizationId;
    const idleExpiresAt = new Date(Math.min(row.lastSeenAt.getTime() + deps.config.sessionIdleMs, row.expiresAt.getTime()));
    return {
      id: row.id,
      admin: false,
      projectId: inOrg ? row.projectId : null,
      apiKeyId: null,
      project: inOrg && row.projectId ? { id: row.projectId, name: row.projectName! } : null,
      key: null,
      createdAt: row.createdAt,
      idleExpiresAt,
      expiresAt: row.expiresAt,
      keyGrant: null,
      user: { id: row.userId, email: row.userEmail!, name: row.userName },
      organization: row.organizationId ? { id: row.organizationId, name: row.organizationName ?? "" } : null,
      orgRole: row.orgRole,
      role: inOrg ? effectiveRole(row.orgRole, row.projectRole) : null,
    };
  }
  const key = row.key ? toApiKeyInfo(row.key) : null;
  const idleExpiresAt = new Date(Math.min(row.lastSeenAt.getTime() + deps.config.sessionIdleMs, row.expiresAt.getTime()));
  return {
    id: row.id,
    admin: row.isAdmin,
    projectId: row.projectName === null ? null : row.projectId,
    apiKeyId: row.apiKeyId,
    project: row.projectId && row.projectName !== null ? { id: row.projectId, name: row.projectName } : null,
    key: key ? { id: key.id, name: key.name, prefix: key.prefix } : null,
    createdAt: row.createdAt,
    idleExpiresAt,
    expiresAt: row.expiresAt,
    keyGrant: key
      ? {
          scopes: key.scopes,
          allowedModels: key.allowedModels,
          ...(key.owner === "person" && row.makerOrgRole && key.createdBy
            ? { maxRole: effectiveRole(row.makerOrgRole, row.makerProjectRole), ownerId: key.createdBy }
            : {}),
        }
      : null,
    user: null,
    organization: null,
    orgRole: null,
    role: null,
  };
}
