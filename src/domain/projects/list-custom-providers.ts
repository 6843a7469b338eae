import { and, eq } from "drizzle-orm";
import { type ListPageInput, orderedPage } from "../list-page";
import { dbOf, type Ctx } from "../context";
import { customProviders } from "../../db/schema";
import { toInfo } from "./create-custom-provider";
import type { CustomProviderInfo } from "./provider-settings";

/** A page of the project's custom providers, by slug (list-page.ts). */
export async function listCustomProviders(ctx: Ctx, raw?: ListPageInput): Promise<CustomProviderInfo[]> {
  const scope = eq(customProviders.projectId, ctx.projectId);
  const page = await orderedPage(ctx, raw, {
    table: customProviders,
    id: customProviders.id,
    by: [customProviders.slug],
    scope,
    what: "project's custom providers",
  });
  const rows = await dbOf(ctx)
    .select()
    .from(customProviders)
    .where(and(scope, page.after))
    .orderBy(...page.order)
    .limit(page.limit);
  return rows.map(toInfo);
}
