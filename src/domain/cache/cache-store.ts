import { and, eq, gt, inArray, lt } from "drizzle-orm";
import { dbOf, type BaseCtx, type Ctx } from "../context";
import { cacheEntries } from "../../db/schema";
import type { Caches, RememberedAnswer } from "../caches";
import type { Deps } from "../deps";
import { readOrKnown } from "../../db/read-or-known";
import type { ChatCompletion, EmbeddingList } from "../../providers";

const CACHE_TTL_MS = 7 * 24 * 60 * 60 * 1000;

// Hits are served from process memory when possible: an entry never changes until it expires or
// is rewritten for the same request, so a remembered one is always a valid answer (another
// process's rewrite is seen here once this copy is evicted). Bounded by count and by size.
const MEMORY_MAX_ENTRIES = 10_000;
const MEMORY_MAX_BYTES = 64 * 1024 * 1024;
const MEMORY_MAX_ENTRY_BYTES = 256 * 1024;
/**
 * What an entry holds: a chat completion, an embeddings answer, or a provider's own answer passed
 * through (an Anthropic Message, an OpenAI Response); the keys of each kind never meet (cache-key.ts).
 */
type CachedAnswer = ChatCompletion | EmbeddingList | Record<string, unknown>;
type Remembered = RememberedAnswer;
type Memory = Caches["answers"];

/** This process's answers in memory (deps.caches.answers). */
const memoryOf = (deps: Deps): Memory => deps.caches.answers;

function remember(deps: Deps, key: string, entry: Omit<Remembered, "bytes">): void {
  const bytes = JSON.stringify(entry.response).length;
  if (bytes > MEMORY_MAX_ENTRY_BYTES) return;
  const m = memoryOf(deps);
  forget(m, key);
  m.entries.set(key, { ...entry, bytes });
  m.bytes += bytes;
  // Map iteration order is insertion order: the first entries are the least recently used.
  for (const [k] of m.entries) {
    if (m.entries.size <= MEMORY_MAX_ENTRIES && m.bytes <= MEMORY_MAX_BYTES) break;
    forget(m, k);
  }
}

function forget(m: Memory, key: string): void {
  const old = m.entries.get(key);
  if (old) {
    m.bytes -= old.bytes;
    m.entries.delete(key);
  }
}

export async function readCacheEntry<T extends CachedAnswer = ChatCompletion>(ctx: Ctx, key: string): Promise<{ response: T; createdAt: Date } | null> {
  const memKey = `${ctx.projectId}:${key}`;
  const m = memoryOf(ctx.deps);
  const held = m.entries.get(memKey);
  if (held) {
    if (held.expiresAt > ctx.deps.clock()) {
      m.entries.delete(memKey);
      m.entries.set(memKey, held);
      return { response: held.response as T, createdAt: held.createdAt };
    }
    forget(m, memKey);
  }
  // The database unreachable or slow to answer: a miss, and the call goes to its provider.
  const read = await readOrKnown(
    ctx.deps.database,
    async () =>
      (
        await dbOf(ctx)
          .select({ response: cacheEntries.response, createdAt: cacheEntries.createdAt, expiresAt: cacheEntries.expiresAt })
          .from(cacheEntries)
          .where(and(eq(cacheEntries.projectId, ctx.projectId), eq(cacheEntries.key, key), gt(cacheEntries.expiresAt, ctx.deps.clock())))
      )[0],
    { value: undefined },
  );
  const row = read.value;
  if (!row) return null;
  remember(ctx.deps, memKey, { response: row.response as T, createdAt: row.createdAt, expiresAt: row.expiresAt });
  return { response: row.response as T, createdAt: row.createdAt };
}

export async function writeCacheEntry(ctx: Ctx, key: string, response: CachedAnswer): Promise<void> {
  const now = ctx.deps.clock();
  const expiresAt = new Date(now.getTime() + CACHE_TTL_MS);
  await dbOf(ctx)
    .insert(cacheEntries)
    .values({ projectId: ctx.projectId, key, response, createdAt: now, expiresAt })
    .onConflictDoUpdate({ target: [cacheEntries.projectId, cacheEntries.key], set: { response, createdAt: now, expiresAt } });
  remember(ctx.deps, `${ctx.projectId}:${key}`, { response, createdAt: now, expiresAt });
}

/** Removes expired entries in small batches (background sweep). Returns how many. */
export async function deleteExpiredCacheEntries(ctx: BaseCtx, batchSize = 2_000): Promise<number> {
  let deleted = 0;
  for (;;) {
    const now = ctx.deps.clock();
    const expired = dbOf(ctx).select({ key: cacheEntries.key }).from(cacheEntries).where(lt(cacheEntries.expiresAt, now)).limit(batchSize);
    const rows = await dbOf(ctx)
      .delete(cacheEntries)
      .where(and(lt(cacheEntries.expiresAt, now), inArray(cacheEntries.key, expired)))
      .returning({ key: cacheEntries.key });
    deleted += rows.length;
    if (rows.length < batchSize) return deleted;
  }
}
