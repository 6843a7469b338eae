import type { Metric } from "./schemas";
import type { Window } from "./windows";

// What a process keeps in memory of the limits it counts (domain/limits/leases.ts): a type and its
// empty value only, so that src/caches.ts can hold it without importing the domain.

export type Counter = {
  limitId: string;
  projectId: string;
  metric: Metric;
  value: string;
  window: Window;
  cap: number;
  /** Leased to this process from the row. */
  granted: number;
  /** Reserved or used here, out of `granted`. */
  used: number;
  /** The row's `leased` (all processes) as last seen. */
  rowLeased: number;
  /** Settled here and not yet written, and used past `granted` not yet added to the row's `leased`. */
  spentDelta: number;
  overrun: number;
  pending: Promise<void> | null;
};

export type Leases = {
  counters: Map<string, Counter>;
  /** Counters with something to write. */
  dirty: Set<Counter>;
  flushTimer: ReturnType<typeof setTimeout> | null;
  flushing: Promise<void> | null;
};

export function createLeases(): Leases {
  return { counters: new Map(), dirty: new Set(), flushTimer: null, flushing: null };
}
