import type { NewRequestLog } from "../schemas";

/** Where the gateway and the report verbs hand their logs; src/log-writer/ holds the implementations. */
export type LogWriter = {
  /** Queues a log; the request does not wait for it. */
  enqueue(record: NewRequestLog): void;
  /** Queues a log and resolves once it is committed (group commit with other pending logs). */
  write(record: NewRequestLog): Promise<void>;
  /** Resolves when everything queued so far is committed (or given up on). */
  flush(): Promise<void>;
  /** Flushes, then releases what the writer holds (its thread); nothing may be queued after. */
  close(): Promise<void>;
  /** The backlog and totals since start, for /metrics and /health. */
  stats(): LogWriterStats;
  /**
   * Stores a batch of Responses (the JSON array insertStoredResponses takes) on the writer's own
   * connection, off the serving thread (the log-writer thread on Postgres). Absent, or null when
   * it cannot take them now: the caller stores them itself.
   */
  storeResponses?(batch: string): Promise<void> | null;
};

export type LogWriterStats = {
  /** Logs queued and not stored yet. */
  depth: number;
  /** How long the oldest of them has waited (null: none waiting). */
  oldestAgeMs: number | null;
  written: number;
  /** Logs lost: rejected by the database, or given up on and not in the spool. */
  dropped: number;
  /** The durable spool, when there is one. */
  spool?: { bytes: number; segments: number; awaitingReplay: number; replayed: number; unspooled: number };
};
