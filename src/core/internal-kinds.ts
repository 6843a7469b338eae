// What Hone's own model calls are made for. They are logged with source `internal` and this kind,
// kept apart from the application's traffic: hidden from the logs by default, a group of their own
// in usage, never imported into datasets unless asked for.
export const INTERNAL_KINDS = ["judge", "evaluation", "alignment", "relabel", "playground", "monitor"] as const;
export type InternalKind = (typeof INTERNAL_KINDS)[number];
