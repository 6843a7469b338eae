import { and, eq, inArray } from "drizzle-orm";
import type { Queryable } from "../../db/client";
import { apiKeys, projects } from "../../db/schema";

/** Makes a person's keys in the organisation's projects service keys; returns how many. */
export async function handOver(db: Queryable, org: string, userId: string, keyIds: string[] | null): Promise<number> {
  const orgProjects = db.select({ id: projects.id }).from(projects).where(eq(projects.organizationId, org));
  const rows = await db
    .update(apiKeys)
    .set({ owner: "project" })
    .where(
      and(
        eq(apiKeys.createdBy, userId),
        eq(apiKeys.owner, "person"),
        inArray(apiKeys.projectId, orgProjects),
        ...(keyIds ? [inArray(apiKeys.id, keyIds)] : []),
      ),
    )
    .returning({ id: apiKeys.id });
  return rows.length;
}
