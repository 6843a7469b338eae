import { desc, eq } from "drizzle-orm";
import { dbOf, type Ctx } from "../../context";
import { criteria } from "../../db/schema";
import { withVersions } from "./internal";
import type { Criterion } from "./schemas";

export async function listCriteria(ctx: Ctx): Promise<Criterion[]> {
  const rows = await dbOf(ctx)
    .select({ id: criteria.id, name: criteria.name, createdAt: criteria.createdAt })
    .from(criteria)
    .where(eq(criteria.projectId, ctx.projectId))
    .orderBy(desc(criteria.id));
  return withVersions(ctx, rows);
}
