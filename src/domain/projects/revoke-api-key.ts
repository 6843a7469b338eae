import { and, eq, isNull } from "drizzle-orm";
import { dbOf, type Ctx } from "../context";
import { apiKeys } from "../../db/schema";
import { notFound, parseInput } from "../../core/errors";
import { requireFullKey } from "./key-scopes";
import { forgetApiKey } from "./authenticate-api-key";
import { apiKeyInfoColumns, toApiKeyInfo } from "./internal";
import { RevokeApiKeyInput, type ApiKeyInfo } from "./schemas";

/**
 * Revokes one of the project's keys. Idempotent: revoking a revoked key returns it unchanged
 * (the first revocation time is kept). A key may revoke itself, even the project's last one: an
 * operator can always issue a new key with `hone keys create` or the admin token.
 * This process forgets the key at once; other processes within HONE_API_KEY_CACHE_MS.
 */
export async function revokeApiKey(ctx: Ctx, raw: RevokeApiKeyInput): Promise<ApiKeyInfo> {
  requireFullKey(ctx.actor, "revoke API keys");
  const input = parseInput(RevokeApiKeyInput, raw);
  const db = dbOf(ctx);
  const ofProject = and(eq(apiKeys.id, input.id), eq(apiKeys.projectId, ctx.projectId));
  const [revoked] = await db
    .update(apiKeys)
    .set({ revokedAt: ctx.deps.clock() })
    .where(and(ofProject, isNull(apiKeys.revokedAt)))
    .returning({ ...apiKeyInfoColumns, keyHash: apiKeys.keyHash });
  if (revoked) {
    forgetApiKey(ctx.deps, revoked.keyHash);
    return toApiKeyInfo(revoked);
  }
  // Another project's key is as unknown as a key that never existed.
  const [existing] = await db.select(apiKeyInfoColumns).from(apiKeys).where(ofProject);
  if (!existing) throw notFound("API key", input.id);
  return toApiKeyInfo(existing);
}
