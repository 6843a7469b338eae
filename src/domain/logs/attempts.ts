/** One try of one target by a call with fallbacks or a route, as its log keeps it. */
export type LogAttempt = {
  /** The target's model string. */
  target: string;
  /** The key of the provider's key pool it was called with (absent: the provider has one key). */
  key?: string | null;
  /** The rollout version the target serves, if any. */
  version?: string | null;
  /** 200 when it answered; the failure's status otherwise (null: no answer at all). */
  statusCode: number | null;
  error: string | null;
  latencyMs: number;
  /** What came next: the answer, a retry of the same target, the next target, or nothing (the call failed). */
  next: "answered" | "retried" | "fell-back" | "failed";
};
