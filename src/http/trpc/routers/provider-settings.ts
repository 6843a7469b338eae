import { ListPageInput } from "../../../domain/list-page";
import {
  createCustomProvider,
  CreateCustomProviderInput,
  CustomProviderIdInput,
  deleteCustomProvider,
  updateCustomProvider,
  UpdateCustomProviderInput,
  deleteProviderKey,
  listCustomProviders,
  listProviderKeys,
  ProviderKeyInput,
  setProviderKey,
  SetProviderKeyInput,
  type CustomProviderInfo,
  type ProviderKeyInfo,
} from "../../../domain/projects";
import { toWireDate } from "../../dates";
import { manageProcedure, projectProcedure, router } from "../init";

const keyOut = (k: ProviderKeyInfo) => ({ ...k, updatedAt: toWireDate(k.updatedAt) });
const providerOut = (c: CustomProviderInfo) => ({ ...c, createdAt: toWireDate(c.createdAt) });

export const providerKeysRouter = router({
  set: manageProcedure.input(SetProviderKeyInput).mutation(async ({ ctx, input }) => keyOut(await setProviderKey(ctx.project, input))),
  list: projectProcedure.query(async ({ ctx }) => (await listProviderKeys(ctx.project)).map(keyOut)),
  delete: manageProcedure.input(ProviderKeyInput).mutation(({ ctx, input }) => deleteProviderKey(ctx.project, input)),
});

export const customProvidersRouter = router({
  create: manageProcedure.input(CreateCustomProviderInput).mutation(async ({ ctx, input }) => providerOut(await createCustomProvider(ctx.project, input))),
  list: projectProcedure.input(ListPageInput).query(async ({ ctx, input }) => (await listCustomProviders(ctx.project, input)).map(providerOut)),
  /** Fields given replace the stored ones; `apiKey: null` removes the key. Same URL rules as create. */
  update: manageProcedure.input(UpdateCustomProviderInput).mutation(async ({ ctx, input }) => providerOut(await updateCustomProvider(ctx.project, input))),
  delete: manageProcedure.input(CustomProviderIdInput).mutation(({ ctx, input }) => deleteCustomProvider(ctx.project, input)),
});
