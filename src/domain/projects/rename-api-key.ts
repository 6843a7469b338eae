import { and, eq } from "drizzle-orm";
import { dbOf, type Ctx } from "../context";
import { apiKeys } from "../../db/schema";
import { notFound, parseInput } from "../../core/errors";
import { apiKeyInfoColumns, toApiKeyInfo } from "./internal";
import { requireFullKey } from "./key-scopes";
import { RenameApiKeyInput, type ApiKeyInfo } from "./schemas";

/**
 * Gives one of the project's keys a new name (a revoked one too: its row stays in the list). The
 * name is only a label, so nothing else changes: the key, its sessions and its cache entry stay.
 */
export async function renameApiKey(ctx: Ctx, raw: RenameApiKeyInput): Promise<ApiKeyInfo> {
  requireFullKey(ctx.actor, "rename API keys");
  const input = parseInput(RenameApiKeyInput, raw);
  const [renamed] = await dbOf(ctx)
    .update(apiKeys)
    .set({ name: input.name })
    .where(and(eq(apiKeys.id, input.id), eq(apiKeys.projectId, ctx.projectId)))
    .returning(apiKeyInfoColumns);
  // Another project's key is as unknown as a key that never existed.
  if (!renamed) throw notFound("API key", input.id);
  return toApiKeyInfo(renamed);
}
