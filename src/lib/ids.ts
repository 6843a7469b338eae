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
