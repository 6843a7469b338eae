import { errorFields, type Logger } from "../core/logger";
import { isConnectionError } from "../core/sql-errors";

// What the gateway reads on its path (an API key, provider credentials, a route, a fine-tune) it
// can serve from what it last read while the database is away. A database that is away does not
// always say so at once: a lost connection can take seconds to fail. So a read with a value known
// waits at most READ_GRACE_MS; past that, or on a connection error, the database is taken to be
// away for AWAY_MS, during which such reads are not even tried (a burst of calls must not pile
// queries up in the driver for when it returns), bar one probe that ends it when it answers.

/** The longest a read with a known value waits for the database. */
export const READ_GRACE_MS = 250;
const AWAY_MS = 1_000;

const away = new WeakMap<object, { until: number; probing: boolean }>();

export type Read<T> = { value: T; fresh: boolean };

/**
 * `read()` when it answers in time; else `known` (fresh: false) when there is one. An error that
 * is not about reaching the database is thrown either way. `db` names the database (its state is
 * kept per database).
 */
export async function readOrKnown<T>(db: object, read: () => Promise<T>, known: { value: T } | undefined): Promise<Read<T>> {
  if (!known) return { value: await read(), fresh: true };
  let state = away.get(db);
  if (!state) away.set(db, (state = { until: 0, probing: false }));
  const s = state;
  const now = Date.now();
  if (now < s.until && s.probing) return { value: known.value, fresh: false };
  const attempt = read().then(
    (value) => {
      s.until = 0;
      return { ok: true as const, value };
    },
    (err: unknown) => {
      if (isConnectionError(err)) s.until = Date.now() + AWAY_MS;
      return { ok: false as const, err };
    },
  );
  const wasAway = now < s.until;
  if (wasAway) {
    // One probe at a time while away: answered from what is known, the probe ends the absence.
    s.probing = true;
    void attempt.finally(() => {
      s.probing = false;
    });
    return { value: known.value, fresh: false };
  }
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), READ_GRACE_MS);
  });
  const r = await Promise.race([attempt, late]);
  clearTimeout(timer);
  if (r === null) {
    s.until = Date.now() + AWAY_MS;
    return { value: known.value, fresh: false };
  }
  if (r.ok) return { value: r.value, fresh: true };
  if (isConnectionError(r.err)) return { value: known.value, fresh: false };
  throw r.err;
}

const refreshing = new WeakMap<object, Set<string>>();

/**
 * Refresh-ahead for the gateway's in-process caches. An entry younger than its TTL serves
 * without waiting; once three quarters of it have passed, the call it serves also starts `read` (which
 * writes the entry again) in the background, one at a time per cache and key. Under steady
 * traffic an entry is then read again before it expires, and no call waits on the database for
 * it; an entry past its TTL is still never served while the database answers (the caller's own
 * miss path reads it), so how stale a value can be stays what the TTL says. A failed refresh is
 * logged and left to the next miss.
 */
export function refreshAhead(cache: object, key: string, expires: number, ttlMs: number, now: number, read: () => Promise<unknown>, logger: Logger): void {
  if (expires - now > ttlMs / 4) return;
  let keys = refreshing.get(cache);
  if (!keys) refreshing.set(cache, (keys = new Set()));
  if (keys.has(key)) return;
  const inFlight = keys;
  inFlight.add(key);
  void read()
    .catch((err) => logger.warn("a cache's background refresh failed; the next call past its TTL reads it again", errorFields(err)))
    .finally(() => inFlight.delete(key));
}

/** An entry's value while it lives (and refreshed ahead by `read`, see refreshAhead), else null. */
export function liveEntry<V>(
  cache: Map<string, { value: V; expires: number }>,
  key: string,
  ttlMs: number,
  now: number,
  read: (kept: { value: V; expires: number }) => Promise<unknown>,
  logger: Logger,
): V | null {
  const kept = cache.get(key);
  if (!kept || kept.expires <= now) return null;
  refreshAhead(cache, key, kept.expires, ttlMs, now, () => read(kept), logger);
  return kept.value;
}
