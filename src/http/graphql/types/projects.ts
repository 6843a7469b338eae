import { asInputOf } from "../../../core/verb-input";
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
  updateApiKey,
  UpdateApiKeyInput,
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
    expiresAt: t.field({ type: "DateTime", nullable: true, description: "After it the key is refused; null: never", resolve: (k) => k.expiresAt }),
    scopes: t.stringList({ description: "gateway (model calls, reports), read and write (the management APIs)", resolve: (k) => k.scopes }),
    allowedModels: t.stringList({ nullable: true, description: "Model globs the key may call; null: any", resolve: (k) => k.allowedModels }),
    metadata: t.field({ type: "JSON", description: "A person's notes about the key (owner, app)", resolve: (k) => k.metadata }),
    createdBy: t.exposeString("createdBy", {
      nullable: true,
      description: "The id of the person who made it (a member's userId); null: the CLI, the admin token, a service key, or made before makers were kept",
    }),
    owner: t.exposeString("owner", {
      description:
        "person: acts for createdBy, at most with their role, and stops when they are removed or disabled; project: a service key that outlives its maker",
    }),
  }),
});

const CreatedApiKeyRef = builder.objectRef<CreatedApiKey>("CreatedApiKey").implement({
  fields: (t) => ({
    apiKey: t.exposeString("apiKey", { description: "The key itself, shown this once; only a hash is stored" }),
    key: t.field({ type: ApiKeyRef, resolve: (c) => c.key }),
  }),
});

type InputFields = Parameters<Parameters<typeof builder.inputType>[1]["fields"]>[0];
const grantFields = (t: InputFields) => ({
  expiresAt: t.string({ required: false, description: "ISO 8601: the key is refused after it (absent: never)" }),
  allowedModels: t.stringList({ required: false, description: "Model globs the key may call (openai:gpt-4o*, anthropic:*); absent: any" }),
  scopes: t.stringList({ required: false, description: "gateway, read, write (absent: all three)" }),
  metadata: t.field({ type: "JSON", required: false, description: "Notes by name (owner, app): up to 20 strings" }),
});

const CreateApiKeyInputRef = builder.inputType("CreateApiKeyInput", {
  fields: (t) => ({
    name: t.string({ required: false, description: "A label such as ci or laptop (up to 100 characters)" }),
    owner: t.string({ required: false, description: "me (the default for a person: the key stops when you leave) or project (a service key)" }),
    ...grantFields(t),
  }),
});

const UpdateApiKeyInputRef = builder.inputType("UpdateApiKeyInput", {
  fields: (t) => ({ id: t.id(), name: t.string({ required: false }), ...grantFields(t) }),
});

builder.queryFields((t) => ({
  apiKeys: t.field({
    type: [ApiKeyRef],
    description:
      "A page of the project's API keys, oldest first, revoked ones included: at most `first` (default and ceiling HONE_MAX_PAGE_SIZE), after `after` (a key's id)",
    args: { first: t.arg.int({ required: false }), after: t.arg.string({ required: false }) },
    resolve: (_, a, c) => listApiKeys(projectCtx(c), { first: a.first, after: a.after }),
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
    extensions: { role: "admin" },
    type: CreatedApiKeyRef,
    description: "Issues another key for the project of the calling key",
    args: { input: t.arg({ type: CreateApiKeyInputRef, required: false }) },
    resolve: (_, args, c) => {
      const ctx = projectCtx(c);
      return createApiKey(ctx, { ...asInputOf(NewApiKeyInput, args.input ?? {}), projectId: ctx.projectId });
    },
  }),
  updateApiKey: t.field({
    extensions: { role: "admin" },
    type: ApiKeyRef,
    description: "Changes a key's name, expiry, allowed models, scopes or metadata (the fields given; null clears)",
    args: { input: t.arg({ type: UpdateApiKeyInputRef }) },
    resolve: (_, args, c) => updateApiKey(projectCtx(c), asInputOf(UpdateApiKeyInput, { ...args.input, id: String(args.input.id) })),
  }),
  renameApiKey: t.field({
    extensions: { role: "admin" },
    type: ApiKeyRef,
    description: "Gives a key of the project a new name (up to 100 characters, one line); the key itself does not change",
    args: { id: t.arg.id(), name: t.arg.string({ validate: { schema: RenameApiKeyInput.shape.name } }) },
    resolve: (_, args, c) => renameApiKey(projectCtx(c), { id: String(args.id), name: args.name }),
  }),
  revokeApiKey: t.field({
    extensions: { role: "admin" },
    type: ApiKeyRef,
    description:
      "Revokes a key of the project: it is refused from the next request on (other Hone processes: within HONE_API_KEY_CACHE_MS). Revoking twice returns the first revocation",
    args: { id: t.arg.id() },
    resolve: (_, args, c) => revokeApiKey(projectCtx(c), { id: String(args.id) }),
  }),
}));
