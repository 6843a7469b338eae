import { createProject, CreateProjectInput } from "../../../domain/projects";
import { adminCtx, builder } from "../builder";

const CreatedProject = builder.objectRef<{ projectId: string; apiKey: string }>("CreatedProject").implement({
  fields: (t) => ({
    projectId: t.exposeID("projectId"),
    apiKey: t.exposeString("apiKey", { description: "Shown once; only a hash is stored" }),
  }),
});

builder.mutationFields((t) => ({
  createProject: t.field({
    type: CreatedProject,
    description: "Creates a project and its first API key. Needs the admin token (HONE_ADMIN_TOKEN).",
    args: { name: t.arg.string({ validate: { schema: CreateProjectInput.shape.name } }) },
    resolve: (_, args, context) => createProject(adminCtx(context), { name: args.name }),
  }),
}));
