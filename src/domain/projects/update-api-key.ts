import { and, eq } from "drizzle-orm";
import { dbOf, type Ctx } from "../context";
import { apiKeys } from "../../db/schema";
import { DomainError, notFound, parseInput } from "../../core/errors";
import { forgetApiKey } from "./authenticate-api-key";
import { apiKeyInfoColumns, toApiKeyInfo } from "./internal";
import { requireFullKey } from "./key-scopes";
import { type ApiKeyInfo, UpdateApiKeyInput } from "./schemas";

/**
 * Changes one of the project's keys: its name, expiry, allowed models, scopes or metadata (the
 * fields given). This process applies it at once; others within HONE_API_KEY_CACHE_MS, as for a
 * revocation.
 */
export async function updateApiKey(ctx: Ctx, raw: UpdateApiKeyInput): Promise<ApiKeyInfo> {
  requireFullKey(ctx.actor, "change API keys");
  const input = parseInput(UpdateApiKeyInput, raw);
  if (input.expiresAt && input.expiresAt.getTime() <= ctx.deps.clock().getTime()) {
    throw new DomainError("VALIDATION", "expiresAt must be in the future (revoke the key to stop it now)", {
      issues: [{ message: "expiresAt must be in the future", path: ["expiresAt"] }],
    });
  }
  const set: Partial<typeof apiKeys.$inferInsert> = {};
  if (input.name !== undefined) set.name = input.name;
  if (input.expiresAt !== undefined) {
    set.expiresAt = input.expiresAt;
    // A new expiry gets its own alert.
    set.expiryAlertedAt = null;
  }
  if (input.allowedModels !== undefined) set.allowedModels = input.allowedModels;
  if (input.scopes) set.scopes = input.scopes;
  if (input.metadata !== undefined) set.metadata = input.metadata;
  const where = and(eq(apiKeys.id, input.id), eq(apiKeys.projectId, ctx.projectId));
  const [row] = Object.keys(set).length
    ? await dbOf(ctx)
        .update(apiKeys)
        .set(set)
        .where(where)
        .returning({ ...apiKeyInfoColumns, keyHash: apiKeys.keyHash })
    : await dbOf(ctx)
        .select({ ...apiKeyInfoColumns, keyHash: apiKeys.keyHash })
        .from(apiKeys)
        .where(where);
  if (!row) throw notFound("API key", input.id);
  forgetApiKey(ctx.deps, row.keyHash);
  return toApiKeyInfo(row);
}
