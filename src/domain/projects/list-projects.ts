import { asc } from "drizzle-orm";
import { dbOf, type BaseCtx } from "../context";
import { projects } from "../../db/schema";
import { MAX_PROJECTS_LISTED } from "../../core/limits";

/** Every project, oldest first (for the admin's project switcher); at most MAX_PROJECTS_LISTED. */
export async function listProjects(ctx: BaseCtx): Promise<{ id: string; name: string; createdAt: Date }[]> {
  return dbOf(ctx).select().from(projects).orderBy(asc(projects.createdAt), asc(projects.id)).limit(MAX_PROJECTS_LISTED);
}
