import { and, eq, gt, isNull, or, sql } from "drizzle-orm";
import type { Queryable } from "../../db/client";
import { apiKeys, consoleSessions, projects } from "../../db/schema";
import type { Deps } from "../../deps";
import { randomBase62 } from "../../ids";
import { apiKeyInfoColumns, toApiKeyInfo } from "../projects/internal";
import type { ResolvedSession } from "./schemas";

export const SESSION_TOKEN_PREFIX = "hone_ses_";

export const newSessionToken = () => SESSION_TOKEN_PREFIX + randomBase62(43);
export const hashSessionToken = (token: string) => Bun.SHA256.hash(token, "hex");

/**
 * The live session with this token hash: not revoked, within both limits, and (for a key's
 * session) its key not revoked. One indexed read joined to two primary keys.
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
      apiKeyId: consoleSessions.apiKeyId,
      key: apiKeyInfoColumns,
      createdAt: consoleSessions.createdAt,
      lastSeenAt: consoleSessions.lastSeenAt,
      expiresAt: consoleSessions.expiresAt,
    })
    .from(consoleSessions)
    .leftJoin(projects, eq(projects.id, consoleSessions.projectId))
    .leftJoin(apiKeys, eq(apiKeys.id, consoleSessions.apiKeyId))
    .where(
      and(
        eq(consoleSessions.tokenHash, tokenHash),
        isNull(consoleSessions.revokedAt),
        gt(consoleSessions.expiresAt, now),
        gt(consoleSessions.lastSeenAt, idleSince),
        // A key's session lives only as long as its key (and its project).
        // A key's session lives only as long as its key (and its project): not revoked, not expired.
        or(
          eq(consoleSessions.isAdmin, true),
          and(
            isNull(apiKeys.revokedAt),
            or(isNull(apiKeys.expiresAt), gt(apiKeys.expiresAt, now)),
            sql`${apiKeys.id} is not null`,
            sql`${projects.id} is not null`,
          ),
        ),
      ),
    );
  if (!row) return null;
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
    keyGrant: key ? { scopes: key.scopes, allowedModels: key.allowedModels } : null,
  };
}
