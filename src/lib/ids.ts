// Prefixed, time-ordered ids: a UUIDv7 in hex (ms timestamp first), so ids sort by creation time
// and make good b-tree keys. The prefix tells a reader what an id names.
const ID_PREFIXES = {
  project: "prj",
  apiKey: "key",
  dataset: "ds",
  datasetEntry: "dse",
  customProvider: "cp",
  log: "log",
  criterion: "crit",
  alignmentRow: "alr",
  model: "ft",
  job: "job",
  evaluation: "eval",
  datasetTask: "dtask",
  alignmentTask: "atask",
  session: "ses",
  datasetImport: "imp",
  response: "resp",
  route: "rt",
  routeVerdict: "rv",
  priceOverride: "pov",
  costRecalculation: "rcalc",
  limit: "lim",
  webhookDelivery: "whd",
  organization: "org",
  user: "usr",
  invitation: "inv",
  auditEvent: "aud",
  monitor: "mon",
  relabelRun: "rl",
  pruningRule: "prn",
  onlineEval: "oev",
  trainer: "trn",
  lease: "lease",
  maskingRule: "mrl",
  maskingBackfill: "mbf",
  maskingRecognizer: "mrc",
} as const;
export type IdKind = keyof typeof ID_PREFIXES;

/** A new id of this kind; `at` sets the time its first 48 bits hold (a log is dated when its call was made). */
export type IdGenerator = (kind: IdKind, at?: Date) => string;

export const newId: IdGenerator = (kind, at) => `${ID_PREFIXES[kind]}_${Bun.randomUUIDv7("hex", at?.getTime()).replaceAll("-", "")}`;

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** Uniformly random base62 string (rejection sampling, so no modulo bias). */
export function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) {
    const bytes = crypto.getRandomValues(new Uint8Array(length * 2));
    for (const b of bytes) {
      if (b < 248 && out.length < length) out += BASE62[b % 62];
    }
  }
  return out;
}

/**
 * An id of this kind derived from a key (the same key, the same id): time-ordered like newId (its
 * first 48 bits are `at`), the rest a digest of the key. What a client may send twice (an
 * OpenTelemetry span) is stored once: the second insert meets the first's id. `subMs`, the
 * fraction of `at`'s millisecond in [0, 1) when known, fills the next 12 bits (UUIDv7's "increased
 * clock precision"), so ids of one millisecond still sort by time.
 */
export function derivedId(kind: IdKind, at: Date, key: string, subMs?: number): string {
  const ms = Math.max(0, Math.min(at.getTime(), 0xffffffffffff)).toString(16).padStart(12, "0");
  const digest = new Bun.CryptoHasher("sha256").update(key).digest("hex");
  const precise =
    subMs !== undefined && subMs >= 0 && subMs < 1
      ? Math.floor(subMs * 4096)
          .toString(16)
          .padStart(3, "0")
      : null;
  // As a UUIDv7: version 7, variant 10.
  return `${ID_PREFIXES[kind]}_${ms}7${precise ?? digest.slice(0, 3)}${((Number.parseInt(digest[3]!, 16) & 0x3) | 0x8).toString(16)}${digest.slice(4, 19)}`;
}
