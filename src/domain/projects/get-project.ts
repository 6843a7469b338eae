import { eq } from "drizzle-orm";
import { dbOf, type BaseCtx } from "../context";
import { projects } from "../../db/schema";
import { notFound } from "../../core/errors";

export async function getProject(ctx: BaseCtx, projectId: string): Promise<{ id: string; name: string; createdAt: Date }> {
  const [row] = await dbOf(ctx).select().from(projects).where(eq(projects.id, projectId));
  if (!row) throw notFound("Project", projectId);
  return row;
}
