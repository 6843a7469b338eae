import { dbOf, type Ctx } from "../context";
import { requireFullKey } from "./key-scopes";
import { encryptSecret } from "../../lib/crypto";
import { customProviders } from "../../db/schema";
import { DomainError, parseInput } from "../../core/errors";
import { isUniqueViolation } from "../../core/sql-errors";
import { checkUpstreamUrl, upstreamPolicy } from "../../providers";
import { CreateCustomProviderInput, type CustomProviderInfo } from "./provider-settings";

/**
 * Adds an OpenAI-compatible or Azure OpenAI endpoint, addressed as `hone:<slug>/<model>`; or a vLLM
 * server (kind vllm) that also serves the adapters Hone's trainers made for its base model.
 */
export async function createCustomProvider(ctx: Ctx, raw: CreateCustomProviderInput): Promise<CustomProviderInfo> {
  requireFullKey(ctx.actor, "add custom providers");
  const input = parseInput(CreateCustomProviderInput, raw);
  // An early, clear answer for hosts that are private on their face; names are checked again on
  // every call, when they are resolved (the check that counts).
  checkUpstreamUrl(input.baseUrl, upstreamPolicy(ctx.deps.config));
  const id = ctx.deps.ids("customProvider");
  const keyCiphertext = input.apiKey ? await encryptSecret(ctx.deps.secretKey, input.apiKey, `custom-provider:${ctx.projectId}:${id}`) : null;
  try {
    const [row] = await dbOf(ctx)
      .insert(customProviders)
      .values({
        id,
        projectId: ctx.projectId,
        slug: input.slug,
        kind: input.kind,
        baseUrl: input.baseUrl.replace(/\/+$/, ""),
        apiVersion: input.apiVersion ?? null,
        baseModel: input.baseModel ?? null,
        keyCiphertext,
        keyLast4: input.apiKey ? input.apiKey.slice(-4) : null,
        createdAt: ctx.deps.clock(),
      })
      .returning();
    return toInfo(row!);
  } catch (err) {
    if (isUniqueViolation(err)) throw new DomainError("CONFLICT", `A custom provider with slug ${input.slug} already exists`);
    throw err;
  }
}

export function toInfo(row: typeof customProviders.$inferSelect): CustomProviderInfo {
  return {
    id: row.id,
    slug: row.slug,
    kind: row.kind,
    baseUrl: row.baseUrl,
    apiVersion: row.apiVersion,
    baseModel: row.baseModel,
    keyLast4: row.keyLast4,
    createdAt: row.createdAt,
  };
}
