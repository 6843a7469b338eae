import { and, eq } from "drizzle-orm";
import { dbOf, type Ctx } from "../../context";
import { DecryptError, decryptSecret } from "../../crypto";
import { customProviders, providerKeys } from "../../db/schema";
import type { Deps } from "../../deps";
import { DomainError } from "../../errors";
import type { Provider } from "./provider-settings";

type CustomProviderTarget = {
  id: string;
  slug: string;
  kind: "openai" | "azure";
  baseUrl: string;
  apiVersion: string | null;
  apiKey: string | null;
};

// Decrypted credentials are kept in process memory for a few seconds: the gateway needs them on
// every call, and a key set in another Hone process becomes visible within the TTL.
const TTL_MS = 10_000;
function projectCache(deps: Deps, projectId: string): Map<string, { value: unknown; expires: number }> {
  const byProject = deps.caches.credentials;
  let m = byProject.get(projectId);
  if (!m) {
    if (byProject.size > 10_000) byProject.clear();
    byProject.set(projectId, (m = new Map()));
  }
  return m;
}

export function forgetCredentials(deps: Deps, projectId: string): void {
  deps.caches.credentials.delete(projectId);
}

async function cached<T>(ctx: Ctx, key: string, load: () => Promise<T>): Promise<T> {
  const m = projectCache(ctx.deps, ctx.projectId);
  const hit = m.get(key);
  const now = ctx.deps.clock().getTime();
  if (hit && hit.expires > now) return hit.value as T;
  const value = await load();
  m.set(key, { value, expires: now + TTL_MS });
  return value;
}

function undecryptable(what: string): DomainError {
  return new DomainError(
    "INTERNAL",
    `The stored ${what} cannot be decrypted: HONE_SECRET_KEY is not the key it was stored with. ` +
      `Restore the original HONE_SECRET_KEY, or store the key again.`,
  );
}

/** The project's decrypted key for a provider; a clear 400 naming the provider when none is stored. */
export function getProviderApiKey(ctx: Ctx, provider: Provider): Promise<string> {
  return cached(ctx, `key:${provider}`, async () => {
    const [row] = await dbOf(ctx)
      .select({ keyCiphertext: providerKeys.keyCiphertext })
      .from(providerKeys)
      .where(and(eq(providerKeys.projectId, ctx.projectId), eq(providerKeys.provider, provider)));
    if (!row) {
      throw new DomainError(
        "VALIDATION",
        `No ${provider} API key is stored for this project. Store one with the GraphQL mutation setProviderKey, ` +
          `tRPC providerKeys.set, or \`hone provider-keys set --provider ${provider}\`.`,
        { issues: [{ message: `missing ${provider} API key` }], provider },
      );
    }
    try {
      return await decryptSecret(ctx.deps.secretKey, row.keyCiphertext, `provider-key:${ctx.projectId}:${provider}`);
    } catch (err) {
      if (err instanceof DecryptError) throw undecryptable(`${provider} API key`);
      throw err;
    }
  });
}

export function getCustomProvider(ctx: Ctx, slug: string): Promise<CustomProviderTarget> {
  return cached(ctx, `custom:${slug}`, async () => {
    const [row] = await dbOf(ctx)
      .select()
      .from(customProviders)
      .where(and(eq(customProviders.projectId, ctx.projectId), eq(customProviders.slug, slug)));
    if (!row) throw new DomainError("NOT_FOUND", `Custom provider ${slug} not found`);
    let apiKey: string | null = null;
    if (row.keyCiphertext) {
      try {
        apiKey = await decryptSecret(ctx.deps.secretKey, row.keyCiphertext, `custom-provider:${ctx.projectId}:${row.id}`);
      } catch (err) {
        if (err instanceof DecryptError) throw undecryptable(`key of custom provider ${slug}`);
        throw err;
      }
    }
    return { id: row.id, slug: row.slug, kind: row.kind, baseUrl: row.baseUrl, apiVersion: row.apiVersion, apiKey };
  });
}
