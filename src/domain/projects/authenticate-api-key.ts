import { and, eq, isNull } from "drizzle-orm";
import { apiKeys } from "../../db/schema";
import type { Deps } from "../../deps";
import { DomainError } from "../../errors";
import { hashApiKey } from "./internal";
import type { Authenticated } from "./schemas";

// Every gateway call authenticates; a short-lived in-process cache keeps that off the database.
// Keys are only ever added today, so the TTL bounds how long a future revocation takes to apply.
const CACHE_TTL_MS = 30_000;
const CACHE_MAX = 10_000;
const cache = new WeakMap<Deps, Map<string, { value: Authenticated; expires: number }>>();

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
  let byHash = cache.get(deps);
  if (!byHash) cache.set(deps, (byHash = new Map()));
  const now = Date.now();
  const hit = byHash.get(keyHash);
  if (hit && hit.expires > now) return hit.value;

  const [row] = await deps.database.db
    .select({ id: apiKeys.id, projectId: apiKeys.projectId })
    .from(apiKeys)
    .where(and(eq(apiKeys.keyHash, keyHash), isNull(apiKeys.revokedAt)));
  if (!row) throw new DomainError("UNAUTHORIZED", "Invalid API key");
  const value = { projectId: row.projectId, keyId: row.id };
  if (byHash.size >= CACHE_MAX) byHash.clear();
  byHash.set(keyHash, { value, expires: now + CACHE_TTL_MS });
  return value;
}
