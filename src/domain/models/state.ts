import { DomainError } from "../../core/errors";
import type { ModelStatus } from "./schemas";

/**
 * The fine-tune life cycle, in one place:
 *   PENDING -> QUEUED -> TRAINING -> DEPLOYED, and ERROR from any state that is not final.
 * QUEUED -> DEPLOYED is allowed for backends that finish between two polls.
 */
const NEXT: Record<ModelStatus, readonly ModelStatus[]> = {
  PENDING: ["QUEUED", "ERROR"],
  QUEUED: ["TRAINING", "DEPLOYED", "ERROR"],
  TRAINING: ["DEPLOYED", "ERROR"],
  DEPLOYED: [],
  ERROR: [],
};

export function canTransition(from: ModelStatus, to: ModelStatus): boolean {
  return from === to || NEXT[from].includes(to);
}

export function assertTransition(from: ModelStatus, to: ModelStatus): void {
  if (!canTransition(from, to)) throw new DomainError("CONFLICT", `A model cannot go from ${from} to ${to}`);
}

export const isFinal = (s: ModelStatus) => NEXT[s].length === 0;
export const isTraining = (s: ModelStatus) => s === "QUEUED" || s === "TRAINING";
