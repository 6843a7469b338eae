import { createProject, CreateProjectInput, listProjects } from "../../../domain/projects";
import { toWireDate } from "../../dates";
import { adminProcedure, router } from "../init";

export const adminRouter = router({
  createProject: adminProcedure.input(CreateProjectInput).mutation(async ({ ctx, input }) => {
    const created = await createProject(ctx.admin, input);
    return { projectId: created.projectId, apiKey: created.apiKey };
  }),
  listProjects: adminProcedure.query(async ({ ctx }) =>
    (await listProjects(ctx.admin)).map((p) => ({ id: p.id, name: p.name, createdAt: toWireDate(p.createdAt) })),
  ),
});
