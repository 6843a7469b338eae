import { and, eq, isNull, lt, or } from "drizzle-orm";
import { apiKeys, memberships, projectRoles, projects, users } from "../../db/schema";
import type { Role } from "../../core/key-scope";
import type { Deps } from "../deps";
import { readOrKnown, refreshAhead } from "../../db/read-or-known";
import { DomainError } from "../../core/errors";
import { errorFields } from "../../core/logger";
import { hashApiKey } from "./internal";
import type { Authenticated } from "./schemas";

// Every gateway call authenticates; a short-lived in-process cache keeps that off the database.
// HONE_API_KEY_CACHE_MS bounds how long another process may still accept a revoked key; the
// process that revokes forgets the key at once (forgetApiKey).
const CACHE_MAX = 10_000;
// last_used_at is coarse on purpose: one write per key a minute at most, not one per request.
const LAST_USED_RESOLUTION_MS = 60_000;
// deps.caches.apiKeys: its generation is bumped by every revocation here, so a lookup that began
// before one does not cache what it read.

const RANK: Record<Role, number> = { viewer: 0, member: 1, admin: 2, owner: 3 };

/** Forgets every key this process knows: a person's role or membership changed, so their keys are read again. */
export function forgetAllApiKeys(deps: Deps): void {
  deps.caches.apiKeys.generation++;
  deps.caches.apiKeys.entries.clear();
}

/** Drops a key from this process's cache, so a revocation applies here on the next request. */
export function forgetApiKey(deps: Deps, keyHash: string): void {
  deps.caches.apiKeys.generation++;
  deps.caches.apiKeys.entries.delete(keyHash);
}

/** Resolves a bearer token to its project, or throws UNAUTHORIZED with a message saying why. */
export async function authenticateApiKey(deps: Deps, authorization: string | null | undefined): Promise<Authenticated> {
  if (!authorization) {
    throw new DomainError("UNAUTHORIZED", "Missing API key: send `Authorization: Bearer <your Hone API key>`");
  }
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  if (!match) {
    throw new DomainError("UNAUTHORIZED", "Malformed Authorization header: expected `Bearer <your Hone API key>`");
  }
  const token = match[1]!;
  const keyHash = hashApiKey(token);
  const byHash = deps.caches.apiKeys.entries;
  const now = deps.clock().getTime();
  const hit = byHash.get(keyHash);
  if (hit && hit.expires > now) {
    refreshAhead(byHash, keyHash, hit.expires, deps.config.apiKeyCacheMs, now, () => readApiKey(deps, keyHash, hit, now), deps.logger);
    return unexpired(hit.value, now);
  }
  return readApiKey(deps, keyHash, hit, now);
}

/** Reads a key from the database and keeps it in the cache; a key no longer valid leaves the cache. */
async function readApiKey(deps: Deps, keyHash: string, hit: { value: Authenticated } | undefined, now: number): Promise<Authenticated> {
  const byHash = deps.caches.apiKeys.entries;
  const generation = deps.caches.apiKeys.generation;
  // The database unreachable or slow to answer: a key this process saw valid before keeps working
  // until it answers again (a revocation made meanwhile applies once it does); an unknown key cannot be checked.
  const read = await readOrKnown(
    deps.database,
    async () => {
      const [key] = await deps.database.db
        .select({
          id: apiKeys.id,
          projectId: apiKeys.projectId,
          lastUsedAt: apiKeys.lastUsedAt,
          expiresAt: apiKeys.expiresAt,
          scopes: apiKeys.scopes,
          allowedModels: apiKeys.allowedModels,
          owner: apiKeys.owner,
          createdBy: apiKeys.createdBy,
        })
        .from(apiKeys)
        .where(and(eq(apiKeys.keyHash, keyHash), isNull(apiKeys.revokedAt)));
      if (!key) return undefined;
      if (key.owner !== "person" || !key.createdBy) return { key, maker: null };
      // A person's key acts for them: as long as they are an enabled member, with their role now.
      const [maker] = await deps.database.db
        .select({ email: users.email, disabledAt: users.disabledAt, orgRole: memberships.role, projectRole: projectRoles.role })
        .from(users)
        .innerJoin(projects, eq(projects.id, key.projectId))
        .leftJoin(memberships, and(eq(memberships.organizationId, projects.organizationId), eq(memberships.userId, users.id)))
        .leftJoin(projectRoles, and(eq(projectRoles.projectId, projects.id), eq(projectRoles.userId, users.id)))
        .where(eq(users.id, key.createdBy));
      return { key, maker: maker ?? { email: null, disabledAt: null, orgRole: null, projectRole: null } };
    },
    hit ? { value: undefined } : undefined,
  );
  if (!read.fresh) return unexpired(hit!.value, now);
  const row = read.value?.key;
  if (!row) {
    byHash.delete(keyHash);
    throw new DomainError("UNAUTHORIZED", "Invalid API key");
  }
  const maker = read.value?.maker ?? null;
  let maxRole: Role | undefined;
  if (maker) {
    if (!maker.orgRole || maker.disabledAt) {
      byHash.delete(keyHash);
      const who = maker.email ?? "the person who made it";
      const why = maker.disabledAt ? "whose account is disabled" : "who is no longer a member of this project's organisation";
      throw new DomainError(
        "UNAUTHORIZED",
        `This API key belongs to ${who}, ${why}: it stopped working with them. An admin can hand it to the project (a service key) or make a new one`,
      );
    }
    maxRole = maker.projectRole && RANK[maker.projectRole] < RANK[maker.orgRole] ? maker.projectRole : maker.orgRole;
  }
  const value: Authenticated = {
    projectId: row.projectId,
    keyId: row.id,
    expiresAt: row.expiresAt,
    grant: { scopes: row.scopes, allowedModels: row.allowedModels ?? null, ...(maxRole ? { maxRole, ownerId: row.createdBy! } : {}) },
  };
  unexpired(value, now);
  await touchLastUsed(deps, row);
  if (deps.config.apiKeyCacheMs > 0 && generation === deps.caches.apiKeys.generation) {
    if (byHash.size >= CACHE_MAX) byHash.clear();
    byHash.set(keyHash, { value, expires: now + deps.config.apiKeyCacheMs });
  }
  return value;
}

/**
 * Runs when the key is read (about once per key per HONE_API_KEY_CACHE_MS per process), and writes only
 * when the stored time is a minute old; the condition in SQL keeps concurrent processes to one write.
 */
async function touchLastUsed(deps: Deps, row: { id: string; lastUsedAt: Date | null }): Promise<void> {
  const now = deps.clock();
  if (row.lastUsedAt && now.getTime() - row.lastUsedAt.getTime() < LAST_USED_RESOLUTION_MS) return;
  const stale = new Date(now.getTime() - LAST_USED_RESOLUTION_MS);
  try {
    await deps.database.db
      .update(apiKeys)
      .set({ lastUsedAt: now })
      .where(and(eq(apiKeys.id, row.id), or(isNull(apiKeys.lastUsedAt), lt(apiKeys.lastUsedAt, stale))));
  } catch (err) {
    // A usage timestamp is not worth failing the request for.
    deps.logger.warn("could not record API key use", { keyId: row.id, ...errorFields(err) });
  }
}

/** The key itself, or UNAUTHORIZED once its expiry has passed. */
function unexpired(value: Authenticated, now: number): Authenticated {
  if (value.expiresAt && value.expiresAt.getTime() <= now) {
    throw new DomainError("UNAUTHORIZED", `This API key expired at ${value.expiresAt.toISOString()}; ask for a new one`);
  }
  return value;
}
