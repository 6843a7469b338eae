import { asc, eq } from "drizzle-orm";
import { dbOf, type Ctx } from "../context";
import { providerKeys } from "../../db/schema";
import type { Provider, ProviderKeyInfo } from "./provider-settings";

export async function listProviderKeys(ctx: Ctx): Promise<ProviderKeyInfo[]> {
  const rows = await dbOf(ctx)
    .select({
      provider: providerKeys.provider,
      name: providerKeys.name,
      weight: providerKeys.weight,
      last4: providerKeys.keyLast4,
      updatedAt: providerKeys.updatedAt,
    })
    .from(providerKeys)
    .where(eq(providerKeys.projectId, ctx.projectId))
    .orderBy(asc(providerKeys.provider), asc(providerKeys.name));
  return rows.map((r) => ({ ...r, provider: r.provider as Provider }));
}
