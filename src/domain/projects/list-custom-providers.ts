import { asc, eq } from "drizzle-orm";
import { dbOf, type Ctx } from "../context";
import { customProviders } from "../../db/schema";
import { toInfo } from "./create-custom-provider";
import type { CustomProviderInfo } from "./provider-settings";

export async function listCustomProviders(ctx: Ctx): Promise<CustomProviderInfo[]> {
  const rows = await dbOf(ctx).select().from(customProviders).where(eq(customProviders.projectId, ctx.projectId)).orderBy(asc(customProviders.slug));
  return rows.map(toInfo);
}
