import {
  createCustomProvider,
  CreateCustomProviderInput,
  deleteCustomProvider,
  updateCustomProvider,
  type UpdateCustomProviderInput,
  deleteProviderKey,
  listCustomProviders,
  listProviderKeys,
  setProviderKey,
  SetProviderKeyInput,
  type CustomProviderInfo,
  type ProviderKeyInfo,
} from "../../../domain/projects";
import { builder, projectCtx } from "../builder";

const ProviderKeyRef = builder.objectRef<ProviderKeyInfo>("ProviderKey").implement({
  description: "A provider API key stored for the project (encrypted); only its last 4 characters are ever shown",
  fields: (t) => ({
    provider: t.exposeString("provider"),
    name: t.exposeString("name", { description: "The key's name in the provider's key pool (one key alone: default)" }),
    weight: t.exposeInt("weight", { description: "Its share of the provider's calls, relative to the pool's other keys" }),
    last4: t.exposeString("last4"),
    updatedAt: t.field({ type: "DateTime", resolve: (k) => k.updatedAt }),
  }),
});

const CustomProviderRef = builder.objectRef<CustomProviderInfo>("CustomProvider").implement({
  description:
    "An OpenAI-compatible or Azure OpenAI endpoint, called as hone:<slug>/<model>; kind vllm also serves the adapters of Hone's trainers for its base model",
  fields: (t) => ({
    id: t.exposeID("id"),
    slug: t.exposeString("slug"),
    kind: t.exposeString("kind"),
    baseUrl: t.exposeString("baseUrl"),
    apiVersion: t.exposeString("apiVersion", { nullable: true }),
    baseModel: t.exposeString("baseModel", { nullable: true, description: "kind vllm: the base model the server serves" }),
    keyLast4: t.exposeString("keyLast4", { nullable: true }),
    createdAt: t.field({ type: "DateTime", resolve: (c) => c.createdAt }),
  }),
});

const SetProviderKeyInputRef = builder.inputType("SetProviderKeyInput", {
  fields: (t) => ({
    provider: t.string(),
    apiKey: t.string(),
    name: t.string({ required: false, description: "A name, to add a key to the provider's key pool (default: default)" }),
    weight: t.int({ required: false, description: "Its share of the provider's calls, relative to the pool's other keys (default 1)" }),
  }),
  validate: { schema: SetProviderKeyInput },
});

const CreateCustomProviderInputRef = builder.inputType("CreateCustomProviderInput", {
  fields: (t) => ({
    slug: t.string(),
    kind: t.string({ description: "openai (any OpenAI-compatible base URL), azure, or vllm (a vLLM server with LoRA enabled)" }),
    baseUrl: t.string(),
    apiKey: t.string({ required: false }),
    apiVersion: t.string({ required: false, description: "Azure api-version, e.g. 2024-10-21" }),
    baseModel: t.string({ required: false, description: "kind vllm: the base model the server serves, as trainer models name it" }),
  }),
  validate: { schema: CreateCustomProviderInput },
});

const UpdateCustomProviderInputRef = builder.inputType("UpdateCustomProviderInput", {
  description: "Fields given replace the stored ones; apiKey: null removes the key, apiVersion: null the version",
  fields: (t) => ({
    id: t.id(),
    slug: t.string({ required: false }),
    kind: t.string({ required: false }),
    baseUrl: t.string({ required: false }),
    apiKey: t.string({ required: false }),
    apiVersion: t.string({ required: false }),
    baseModel: t.string({ required: false }),
  }),
});

builder.queryFields((t) => ({
  providerKeys: t.field({ type: [ProviderKeyRef], resolve: (_, __, c) => listProviderKeys(projectCtx(c)) }),
  customProviders: t.field({
    type: [CustomProviderRef],
    description: "A page of the project's custom providers, by slug: at most `first` (default and ceiling HONE_MAX_PAGE_SIZE), after `after` (an id)",
    args: { first: t.arg.int({ required: false }), after: t.arg.string({ required: false }) },
    resolve: (_, a, c) => listCustomProviders(projectCtx(c), { first: a.first, after: a.after }),
  }),
}));

builder.mutationFields((t) => ({
  setProviderKey: t.field({
    extensions: { role: "admin" },
    type: ProviderKeyRef,
    args: { input: t.arg({ type: SetProviderKeyInputRef }) },
    // The verb parses its input (provider names are checked there), so the GraphQL strings go in as they are.
    resolve: (_, args, c) => setProviderKey(projectCtx(c), args.input as SetProviderKeyInput),
  }),
  deleteProviderKey: t.field({
    extensions: { role: "admin" },
    type: "String",
    description: "Removes the stored key of a provider; returns the provider",
    args: { provider: t.arg.string(), name: t.arg.string({ required: false, description: "The key of the pool to remove (default: default)" }) },
    resolve: async (_, args, c) => (await deleteProviderKey(projectCtx(c), { provider: args.provider, name: args.name })).id,
  }),
  createCustomProvider: t.field({
    extensions: { role: "admin" },
    type: CustomProviderRef,
    args: { input: t.arg({ type: CreateCustomProviderInputRef }) },
    resolve: (_, args, c) => createCustomProvider(projectCtx(c), args.input as CreateCustomProviderInput),
  }),
  updateCustomProvider: t.field({
    extensions: { role: "admin" },
    type: CustomProviderRef,
    args: { input: t.arg({ type: UpdateCustomProviderInputRef }) },
    // The verb parses its input (and checks the URL), so the GraphQL values go in as they are.
    resolve: (_, args, c) => updateCustomProvider(projectCtx(c), args.input as UpdateCustomProviderInput),
  }),
  deleteCustomProvider: t.field({
    extensions: { role: "admin" },
    type: "ID",
    description: "Removes a custom provider and its stored key; returns its id",
    args: { id: t.arg.id() },
    resolve: async (_, args, c) => (await deleteCustomProvider(projectCtx(c), { id: String(args.id) })).id,
  }),
}));
