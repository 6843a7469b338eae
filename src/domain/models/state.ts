import { DomainError } from "../../core/errors";
import type { ModelStatus } from "./schemas";

/**
 * The fine-tune life cycle, in one place:
 *   PENDING -> QUEUED -> TRAINING -> DEPLOYED, and ERROR from any state that is not final;
 *   ERROR -> PENDING (or QUEUED for Hone's trainers) when it is retried.
 * QUEUED -> DEPLOYED is allowed for backends that finish between two polls.
 */
const NEXT: Record<ModelStatus, readonly ModelStatus[]> = {
  PENDING: ["QUEUED", "ERROR"],
  QUEUED: ["TRAINING", "DEPLOYED", "ERROR"],
  TRAINING: ["DEPLOYED", "ERROR"],
  DEPLOYED: [],
  // A retry: trained again from the same settings (a trainer's job waits in QUEUED for a trainer).
  ERROR: ["PENDING", "QUEUED"],
};

export function canTransition(from: ModelStatus, to: ModelStatus): boolean {
  return from === to || NEXT[from].includes(to);
}

export function assertTransition(from: ModelStatus, to: ModelStatus): void {
  if (!canTransition(from, to)) throw new DomainError("CONFLICT", `A model cannot go from ${from} to ${to}`);
}

/** Nothing more happens to it on its own (a failed one may be retried by hand). */
export const isFinal = (s: ModelStatus) => s === "DEPLOYED" || s === "ERROR";
export const isTraining = (s: ModelStatus) => s === "QUEUED" || s === "TRAINING";
