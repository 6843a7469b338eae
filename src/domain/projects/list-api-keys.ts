import { and, eq } from "drizzle-orm";
import { dbOf, type Ctx } from "../context";
import { apiKeys } from "../../db/schema";
import { apiKeyInfoColumns, toApiKeyInfo } from "./internal";
import type { ApiKeyInfo } from "./schemas";
import { type ListPageInput, orderedPage } from "../list-page";

/** A page of the project's keys, oldest first, revoked ones included (with revokedAt): never a key or a hash. */
export async function listApiKeys(ctx: Ctx, raw?: ListPageInput): Promise<ApiKeyInfo[]> {
  const scope = eq(apiKeys.projectId, ctx.projectId);
  const page = await orderedPage(ctx, raw, { table: apiKeys, id: apiKeys.id, by: [apiKeys.createdAt], scope, what: "project's API keys" });
  const rows = await dbOf(ctx)
    .select(apiKeyInfoColumns)
    .from(apiKeys)
    .where(and(scope, page.after))
    .orderBy(...page.order)
    .limit(page.limit);
  return rows.map(toApiKeyInfo);
}
