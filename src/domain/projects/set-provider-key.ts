import { dbOf, type Ctx } from "../context";
import { requireFullKey } from "./key-scopes";
import { encryptSecret } from "../../lib/crypto";
import { providerKeys } from "../../db/schema";
import { and, count, eq, ne } from "drizzle-orm";
import { DomainError, parseInput } from "../../core/errors";
import { forgetCredentials } from "./get-upstream-credentials";
import { MAX_KEYS_PER_PROVIDER, providerKeyContext, SetProviderKeyInput, type ProviderKeyInfo } from "./provider-settings";

/**
 * Stores (or replaces) a key of a provider, encrypted; returns only its last 4 characters. Keys
 * with other names join the provider's pool (at most MAX_KEYS_PER_PROVIDER).
 */
export async function setProviderKey(ctx: Ctx, raw: SetProviderKeyInput): Promise<ProviderKeyInfo> {
  requireFullKey(ctx.actor, "set provider keys");
  const input = parseInput(SetProviderKeyInput, raw);
  const keyCiphertext = await encryptSecret(ctx.deps.secretKey, input.apiKey, providerKeyContext(ctx.projectId, input.provider, input.name));
  const now = ctx.deps.clock();
  const last4 = input.apiKey.slice(-4);
  const [{ n }] = (await dbOf(ctx)
    .select({ n: count() })
    .from(providerKeys)
    .where(and(eq(providerKeys.projectId, ctx.projectId), eq(providerKeys.provider, input.provider), ne(providerKeys.name, input.name)))) as [{ n: number }];
  if (n >= MAX_KEYS_PER_PROVIDER) {
    const why = `${input.provider} has ${MAX_KEYS_PER_PROVIDER} keys already (MAX_KEYS_PER_PROVIDER); delete one first`;
    throw new DomainError("VALIDATION", why, { issues: [{ message: why, path: ["name"] }] });
  }
  await dbOf(ctx)
    .insert(providerKeys)
    .values({ projectId: ctx.projectId, provider: input.provider, name: input.name, weight: input.weight, keyCiphertext, keyLast4: last4, updatedAt: now })
    .onConflictDoUpdate({
      target: [providerKeys.projectId, providerKeys.provider, providerKeys.name],
      set: { keyCiphertext, keyLast4: last4, weight: input.weight, updatedAt: now },
    });
  forgetCredentials(ctx.deps, ctx.projectId);
  return { provider: input.provider, name: input.name, weight: input.weight, last4, updatedAt: now };
}
