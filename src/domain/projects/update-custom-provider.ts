import { and, eq } from "drizzle-orm";
import { requireFullKey } from "./key-scopes";
import { dbOf, type Ctx } from "../context";
import { encryptSecret } from "../../lib/crypto";
import { isUniqueViolation } from "../../core/sql-errors";
import { customProviders } from "../../db/schema";
import { DomainError, notFound, parseInput, validationError } from "../../core/errors";
import { checkUpstreamUrl, upstreamPolicy } from "../../providers";
import { toInfo } from "./create-custom-provider";
import { forgetCredentials } from "./get-upstream-credentials";
import { CreateCustomProviderInput, UpdateCustomProviderInput, type CustomProviderInfo } from "./provider-settings";

/**
 * Changes a custom provider: the fields given replace the stored ones (`apiKey: null` removes the
 * key). The result is checked as on create (slug, URL, azure's apiVersion, vllm's baseModel), the URL against the
 * same SSRF rules; another project's provider is NOT_FOUND.
 */
export async function updateCustomProvider(ctx: Ctx, raw: UpdateCustomProviderInput): Promise<CustomProviderInfo> {
  requireFullKey(ctx.actor, "change custom providers");
  const input = parseInput(UpdateCustomProviderInput, raw);
  const db = dbOf(ctx);
  const where = and(eq(customProviders.id, input.id), eq(customProviders.projectId, ctx.projectId));
  const [row] = await db.select().from(customProviders).where(where);
  if (!row) throw notFound("Custom provider", input.id);
  const next = {
    slug: input.slug ?? row.slug,
    kind: input.kind ?? row.kind,
    baseUrl: input.baseUrl ?? row.baseUrl,
    apiVersion: input.apiVersion === undefined ? row.apiVersion : input.apiVersion,
    // A provider moved off kind vllm leaves its base model behind unless one is given.
    baseModel: input.baseModel !== undefined ? input.baseModel : (input.kind ?? row.kind) === "vllm" ? row.baseModel : null,
  };
  const checked = CreateCustomProviderInput.safeParse(next);
  if (!checked.success) throw validationError(checked.error);
  if (input.baseUrl !== undefined) checkUpstreamUrl(input.baseUrl, upstreamPolicy(ctx.deps.config));
  const key =
    input.apiKey === undefined
      ? {}
      : input.apiKey === null
        ? { keyCiphertext: null, keyLast4: null }
        : {
            keyCiphertext: await encryptSecret(ctx.deps.secretKey, input.apiKey, `custom-provider:${ctx.projectId}:${row.id}`),
            keyLast4: input.apiKey.slice(-4),
          };
  try {
    const [updated] = await db
      .update(customProviders)
      .set({ ...next, baseUrl: next.baseUrl.replace(/\/+$/, ""), apiVersion: next.apiVersion ?? null, baseModel: next.baseModel ?? null, ...key })
      .where(where)
      .returning();
    if (!updated) throw notFound("Custom provider", input.id);
    return toInfo(updated);
  } catch (err) {
    if (isUniqueViolation(err)) throw new DomainError("CONFLICT", `A custom provider with slug ${next.slug} already exists`);
    throw err;
  } finally {
    forgetCredentials(ctx.deps, ctx.projectId);
  }
}
