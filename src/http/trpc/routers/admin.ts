import { createProject, CreateProjectInput } from "../../../domain/projects";
import { adminProcedure, router } from "../init";

export const adminRouter = router({
  createProject: adminProcedure.input(CreateProjectInput).mutation(async ({ ctx, input }) => {
    const created = await createProject(ctx.admin, input);
    return { projectId: created.projectId, apiKey: created.apiKey };
  }),
});
