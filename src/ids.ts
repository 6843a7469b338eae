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
} as const;
export type IdKind = keyof typeof ID_PREFIXES;

export type IdGenerator = (kind: IdKind) => string;

export const newId: IdGenerator = (kind) => `${ID_PREFIXES[kind]}_${Bun.randomUUIDv7().replaceAll("-", "")}`;

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
