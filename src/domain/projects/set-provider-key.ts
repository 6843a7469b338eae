import { dbOf, type Ctx } from "../../context";
import { encryptSecret } from "../../crypto";
import { providerKeys } from "../../db/schema";
import { parseInput } from "../../errors";
import { forgetCredentials } from "./get-upstream-credentials";
import { SetProviderKeyInput, type ProviderKeyInfo } from "./provider-settings";

/** Stores (or replaces) the project's key for a provider, encrypted; returns only its last 4 characters. */
export async function setProviderKey(ctx: Ctx, raw: SetProviderKeyInput): Promise<ProviderKeyInfo> {
  const input = parseInput(SetProviderKeyInput, raw);
  const keyCiphertext = await encryptSecret(ctx.deps.secretKey, input.apiKey, `provider-key:${ctx.projectId}:${input.provider}`);
  const now = ctx.deps.clock();
  const last4 = input.apiKey.slice(-4);
  await dbOf(ctx)
    .insert(providerKeys)
    .values({ projectId: ctx.projectId, provider: input.provider, keyCiphertext, keyLast4: last4, updatedAt: now })
    .onConflictDoUpdate({
      target: [providerKeys.projectId, providerKeys.provider],
      set: { keyCiphertext, keyLast4: last4, updatedAt: now },
    });
  forgetCredentials(ctx.deps, ctx.projectId);
  return { provider: input.provider, last4, updatedAt: now };
}
