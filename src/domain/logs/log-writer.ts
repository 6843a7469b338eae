import type { NewRequestLog } from "./schemas";

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
};
