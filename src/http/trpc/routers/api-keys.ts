import { ListPageInput } from "../../../domain/list-page";
import {
  createApiKey,
  listApiKeys,
  NewApiKeyInput,
  renameApiKey,
  RenameApiKeyInput,
  revokeApiKey,
  RevokeApiKeyInput,
  type ApiKeyInfo,
  updateApiKey,
  UpdateApiKeyInput,
} from "../../../domain/projects";
import { toWireDate } from "../../dates";
import { manageProcedure, projectProcedure, router } from "../init";

const keyOut = (k: ApiKeyInfo) => ({
  ...k,
  createdAt: toWireDate(k.createdAt),
  lastUsedAt: toWireDate(k.lastUsedAt),
  revokedAt: toWireDate(k.revokedAt),
  expiresAt: toWireDate(k.expiresAt),
});

export const apiKeysRouter = router({
  list: projectProcedure.input(ListPageInput).query(async ({ ctx, input }) => (await listApiKeys(ctx.project, input)).map(keyOut)),
  /** `apiKey` is the key itself, returned this once. */
  create: manageProcedure.input(NewApiKeyInput.optional()).mutation(async ({ ctx, input }) => {
    const created = await createApiKey(ctx.project, { ...input, projectId: ctx.project.projectId });
    return { apiKey: created.apiKey, key: keyOut(created.key) };
  }),
  /** A new name for a key of the project (a label only: the key itself does not change). */
  rename: manageProcedure.input(RenameApiKeyInput).mutation(async ({ ctx, input }) => keyOut(await renameApiKey(ctx.project, input))),
  /** Changes a key's name, expiry, allowed models, scopes or metadata (the fields given; null clears). */
  update: manageProcedure.input(UpdateApiKeyInput).mutation(async ({ ctx, input }) => keyOut(await updateApiKey(ctx.project, input))),
  revoke: manageProcedure.input(RevokeApiKeyInput).mutation(async ({ ctx, input }) => keyOut(await revokeApiKey(ctx.project, input))),
});
