import { and, asc, eq } from "drizzle-orm";
import { dbOf, type Ctx } from "../context";
import { DecryptError, decryptSecret } from "../../lib/crypto";
import { customProviders, providerKeys } from "../../db/schema";
import type { Deps } from "../deps";
import { readOrKnown, refreshAhead } from "../../db/read-or-known";
import { DomainError } from "../../core/errors";
import { DEFAULT_KEY_NAME, type Provider, providerKeyContext } from "./provider-settings";

type CustomProviderTarget = {
  id: string;
  slug: string;
  kind: "openai" | "azure" | "vllm";
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
  if (hit && hit.expires > now) {
    refreshAhead(m, key, hit.expires, TTL_MS, now, () => readIn(ctx, m, key, load, hit, now), ctx.deps.logger);
    return hit.value as T;
  }
  return readIn(ctx, m, key, load, hit, now);
}

async function readIn<T>(
  ctx: Ctx,
  m: Map<string, { value: unknown; expires: number }>,
  key: string,
  load: () => Promise<T>,
  hit: { value: unknown } | undefined,
  now: number,
): Promise<T> {
  // The database unreachable or slow: what was last read keeps serving until it answers again.
  const read = await readOrKnown(ctx.deps.database, load, hit ? { value: hit.value as T } : undefined);
  if (read.fresh) m.set(key, { value: read.value, expires: now + TTL_MS });
  return read.value;
}

function undecryptable(what: string): DomainError {
  return new DomainError(
    "INTERNAL",
    `The stored ${what} cannot be decrypted: HONE_SECRET_KEY is not the key it was stored with. ` +
      `Restore the original HONE_SECRET_KEY, or store the key again.`,
  );
}

/** One key of a provider's pool, decrypted. */
export type PoolKey = { name: string; weight: number; apiKey: string };

/** The provider's keys (one, or several: a key pool), by name; a clear 400 naming the provider when none is stored. */
export function getProviderKeyPool(ctx: Ctx, provider: Provider): Promise<PoolKey[]> {
  return cached(ctx, `keys:${provider}`, async () => {
    const rows = await dbOf(ctx)
      .select({ name: providerKeys.name, weight: providerKeys.weight, keyCiphertext: providerKeys.keyCiphertext })
      .from(providerKeys)
      .where(and(eq(providerKeys.projectId, ctx.projectId), eq(providerKeys.provider, provider)))
      .orderBy(asc(providerKeys.name));
    if (!rows.length) {
      throw new DomainError(
        "VALIDATION",
        `No ${provider} API key is stored for this project. Store one with the GraphQL mutation setProviderKey, ` +
          `tRPC providerKeys.set, or \`hone provider-keys set --provider ${provider}\`.`,
        { issues: [{ message: `missing ${provider} API key` }], provider },
      );
    }
    return Promise.all(
      rows.map(async (row) => {
        try {
          return {
            name: row.name,
            weight: row.weight,
            apiKey: await decryptSecret(ctx.deps.secretKey, row.keyCiphertext, providerKeyContext(ctx.projectId, provider, row.name)),
          };
        } catch (err) {
          if (err instanceof DecryptError) throw undecryptable(`${provider} API key ${row.name}`);
          throw err;
        }
      }),
    );
  });
}

/** A provider's key: the one named, else the `default` key (else the pool's first). */
export async function getProviderApiKey(ctx: Ctx, provider: Provider, name?: string): Promise<string> {
  const pool = await getProviderKeyPool(ctx, provider);
  if (name !== undefined) {
    const named = pool.find((k) => k.name === name);
    if (!named) throw new DomainError("NOT_FOUND", `No ${provider} key named ${name} is stored for this project`);
    return named.apiKey;
  }
  return (pool.find((k) => k.name === DEFAULT_KEY_NAME) ?? pool[0]!).apiKey;
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
