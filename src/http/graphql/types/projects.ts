import {
  createApiKey,
  createProject,
  CreateProjectInput,
  listApiKeys,
  NewApiKeyInput,
  renameApiKey,
  RenameApiKeyInput,
  revokeApiKey,
  type ApiKeyInfo,
  type CreatedApiKey,
} from "../../../domain/projects";
import { adminCtx, builder, projectCtx } from "../builder";

const CreatedProject = builder.objectRef<{ projectId: string; apiKey: string }>("CreatedProject").implement({
  fields: (t) => ({
    projectId: t.exposeID("projectId"),
    apiKey: t.exposeString("apiKey", { description: "Shown once; only a hash is stored" }),
  }),
});

const ApiKeyRef = builder.objectRef<ApiKeyInfo>("ApiKey").implement({
  description: "One of the project's API keys. The key itself is never shown again after its creation; only a hash is stored",
  fields: (t) => ({
    id: t.exposeID("id"),
    name: t.exposeString("name", { nullable: true }),
    prefix: t.exposeString("prefix", { description: "hone_sk_… and the key's last 4 characters, to tell keys apart" }),
    createdAt: t.field({ type: "DateTime", resolve: (k) => k.createdAt }),
    lastUsedAt: t.field({
      type: "DateTime",
      nullable: true,
      description: "When the key last authenticated a request, to the minute (recorded at most once a minute)",
      resolve: (k) => k.lastUsedAt,
    }),
    revokedAt: t.field({ type: "DateTime", nullable: true, resolve: (k) => k.revokedAt }),
  }),
});

const CreatedApiKeyRef = builder.objectRef<CreatedApiKey>("CreatedApiKey").implement({
  fields: (t) => ({
    apiKey: t.exposeString("apiKey", { description: "The key itself, shown this once; only a hash is stored" }),
    key: t.field({ type: ApiKeyRef, resolve: (c) => c.key }),
  }),
});

const CreateApiKeyInputRef = builder.inputType("CreateApiKeyInput", {
  fields: (t) => ({ name: t.string({ required: false, description: "A label such as ci or laptop (up to 100 characters)" }) }),
  validate: { schema: NewApiKeyInput },
});

builder.queryFields((t) => ({
  apiKeys: t.field({
    type: [ApiKeyRef],
    description: "The project's API keys, oldest first, revoked ones included",
    resolve: (_, __, c) => listApiKeys(projectCtx(c)),
  }),
}));

builder.mutationFields((t) => ({
  createProject: t.field({
    type: CreatedProject,
    description: "Creates a project and its first API key. Needs the admin token (HONE_ADMIN_TOKEN).",
    args: { name: t.arg.string({ validate: { schema: CreateProjectInput.shape.name } }) },
    resolve: (_, args, context) => createProject(adminCtx(context), { name: args.name }),
  }),
  createApiKey: t.field({
    type: CreatedApiKeyRef,
    description: "Issues another key for the project of the calling key",
    args: { input: t.arg({ type: CreateApiKeyInputRef, required: false }) },
    resolve: (_, args, c) => {
      const ctx = projectCtx(c);
      return createApiKey(ctx, { projectId: ctx.projectId, name: args.input?.name });
    },
  }),
  renameApiKey: t.field({
    type: ApiKeyRef,
    description: "Gives a key of the project a new name (up to 100 characters, one line); the key itself does not change",
    args: { id: t.arg.id(), name: t.arg.string({ validate: { schema: RenameApiKeyInput.shape.name } }) },
    resolve: (_, args, c) => renameApiKey(projectCtx(c), { id: String(args.id), name: args.name }),
  }),
  revokeApiKey: t.field({
    type: ApiKeyRef,
    description:
      "Revokes a key of the project: it is refused from the next request on (other Hone processes: within HONE_API_KEY_CACHE_MS). Revoking twice returns the first revocation",
    args: { id: t.arg.id() },
    resolve: (_, args, c) => revokeApiKey(projectCtx(c), { id: String(args.id) }),
  }),
}));
