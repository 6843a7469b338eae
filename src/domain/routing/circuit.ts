/** One target's circuit on this process (kept in Caches; read and written by circuits.ts). */
export type Circuit = {
  /** Times of the failures within the window, oldest first. */
  failures: number[];
  /** Set while open: when the cool-down ends (ms since the epoch). */
  openUntil: number | null;
  /** A probe of a half-open circuit is in flight. */
  probing: boolean;
  inFlight: number;
};
