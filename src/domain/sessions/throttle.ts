// Failed sign-ins are counted per client address and per token prefix, in this process's memory.
// Project API keys (hone_sk_ + 40 base62 characters) cannot be guessed; the admin token (16
// characters at least) and passwords can, so a client that keeps failing is made to wait.

/** Failures a client address, or a token prefix, may have in a window before it must wait. */
export const SIGN_IN_MAX_FAILURES = 10;
export const SIGN_IN_WINDOW_MS = 60_000;
/** Characters of a token that name its bucket: `hone_sk_` and four more of an API key. */
export const TOKEN_PREFIX_CHARS = 12;
// Bounds memory: past this many buckets, the least recently failed is forgotten. A bucket holds
// at most SIGN_IN_MAX_FAILURES times, so this is a few megabytes at most.
const MAX_BUCKETS = 20_000;

// What createApiKey issues (40 characters) and HONE_BOOTSTRAP_API_KEY accepts (20 or more).
const API_KEY_SHAPE = /^hone_sk_[A-Za-z0-9]{20,200}$/;

/** A token that can only be a project API key: checking one is a hash lookup, and a valid one is never refused. */
export function isApiKeyShaped(token: string): boolean {
  return API_KEY_SHAPE.test(token);
}

export type Refusal = { scope: "address" | "token"; retryAfterMs: number };

/** One counted failure, taken back when the check it was counted for succeeds. */
type Counted = { undo(): void };

export type SignInThrottle = {
  /** Why an attempt from this address with this token must wait, or null when it may be checked. */
  refusal(address: string, token: string): Refusal | null;
  /** Counts a failure against the address and the token's prefix. */
  fail(address: string, token: string): Counted;
  /** Buckets held now (tests check the bound). */
  size(): number;
};

export function createSignInThrottle(now: () => number, opts: { maxFailures?: number; windowMs?: number; maxBuckets?: number } = {}): SignInThrottle {
  const maxFailures = opts.maxFailures ?? SIGN_IN_MAX_FAILURES;
  const windowMs = opts.windowMs ?? SIGN_IN_WINDOW_MS;
  const maxBuckets = opts.maxBuckets ?? MAX_BUCKETS;
  // A sliding window: each bucket holds the times of its last failures, oldest first. A Map keeps
  // insertion order, and a bucket is re-inserted when it fails, so the first one is the stalest.
  const buckets = new Map<string, number[]>();
  const keysOf = (address: string, token: string) => [`a:${address}`, `t:${token.slice(0, TOKEN_PREFIX_CHARS)}`] as const;

  const live = (key: string, t: number): number[] | undefined => {
    const times = buckets.get(key);
    if (!times) return undefined;
    while (times.length && times[0]! <= t - windowMs) times.shift();
    if (times.length) return times;
    buckets.delete(key);
    return undefined;
  };

  return {
    refusal(address, token) {
      const t = now();
      const [byAddress, byToken] = keysOf(address, token);
      let worst: Refusal | null = null;
      for (const [key, scope] of [
        [byAddress, "address"],
        [byToken, "token"],
      ] as const) {
        const times = live(key, t);
        if (!times || times.length < maxFailures) continue;
        // The window frees a slot when the failure that filled it leaves it.
        const retryAfterMs = times[times.length - maxFailures]! + windowMs - t;
        if (!worst || retryAfterMs > worst.retryAfterMs) worst = { scope, retryAfterMs };
      }
      return worst;
    },
    fail(address, token) {
      const t = now();
      const keys = keysOf(address, token);
      for (const key of keys) {
        const times = live(key, t) ?? [];
        buckets.delete(key);
        times.push(t);
        if (times.length > maxFailures) times.shift();
        buckets.set(key, times);
      }
      while (buckets.size > maxBuckets) buckets.delete(buckets.keys().next().value!);
      return {
        undo() {
          for (const key of keys) {
            const times = buckets.get(key);
            const i = times?.lastIndexOf(t) ?? -1;
            if (i < 0) continue;
            times!.splice(i, 1);
            if (!times!.length) buckets.delete(key);
          }
        },
      };
    },
    size: () => buckets.size,
  };
}
