import { asc, eq } from "drizzle-orm";
import { dbOf, type Ctx } from "../context";
import { apiKeys } from "../../db/schema";
import { apiKeyInfoColumns, toApiKeyInfo } from "./internal";
import type { ApiKeyInfo } from "./schemas";

/** The project's keys, oldest first, revoked ones included (with revokedAt): never a key or a hash. */
export async function listApiKeys(ctx: Ctx): Promise<ApiKeyInfo[]> {
  const rows = await dbOf(ctx)
    .select(apiKeyInfoColumns)
    .from(apiKeys)
    .where(eq(apiKeys.projectId, ctx.projectId))
    .orderBy(asc(apiKeys.createdAt), asc(apiKeys.id));
  return rows.map(toApiKeyInfo);
}
