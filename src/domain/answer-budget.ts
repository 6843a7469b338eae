import type { AnswerBudget, BaseCtx } from "./context";
import { DomainError } from "../core/errors";

// A GraphQL operation or a tRPC batch answers with everything its resolvers load: 15 aliases of a
// page of 200 logs of 1 MB made a 600 MB answer and grew the process by gigabytes. Rows already
// know the size of what they store (payloads, entries, alignment rows, outputs), so each read
// charges that size to the answer's budget before loading it, and one that would pass the limit
// is refused before the load. Reads made for bulk (the export pages) ask for the room left
// instead and return fewer items.

export function newAnswerBudget(limit: number): AnswerBudget {
  return { limit, used: 0, refused: null };
}

const size = (n: number) => n.toLocaleString("en-US");

/**
 * Charges `bytes` of stored content to the answer; throws VALIDATION (naming the limit and what to
 * do instead) when that would pass the limit. Once refused, every later charge of the same answer
 * is refused at once, so nothing more is loaded for an answer that will not be sent.
 */
export function chargeAnswer(ctx: Pick<BaseCtx, "answer">, bytes: number, instead: string): void {
  const b = ctx.answer;
  if (!b || bytes <= 0) return;
  if (b.refused === null && b.used + bytes > b.limit) {
    b.refused = `This answer would carry more than ${size(b.limit)} bytes of stored content, the limit (HONE_MAX_RESPONSE_BYTES): ` + `${instead}`;
  }
  if (b.refused !== null) throw new DomainError("VALIDATION", b.refused, { issues: [{ message: b.refused }] });
  b.used += bytes;
}

/**
 * Charges the size of each key's content, once per time the key is given (a key given twice, by
 * two aliases or two places in the answer, is answered twice): `sizes` holds one size per key.
 */
export function chargeEach(ctx: Pick<BaseCtx, "answer">, keys: readonly string[], sizes: ReadonlyMap<string, number>, instead: string): void {
  chargeAnswer(
    ctx,
    keys.reduce((n, k) => n + (sizes.get(k) ?? 0), 0),
    instead,
  );
}

/** Bytes the answer may still carry (unbounded without a budget). */
export function answerRoom(ctx: Pick<BaseCtx, "answer">): number {
  const b = ctx.answer;
  if (!b) return Number.POSITIVE_INFINITY;
  // An answer already refused (another call of the batch) has no room left for anything.
  return b.refused !== null ? 0 : Math.max(0, b.limit - b.used);
}

/** True when nothing has been charged to the answer yet (a bulk page then always gets its first item, if it fits at all). */
export function answerUntouched(ctx: Pick<BaseCtx, "answer">): boolean {
  return !ctx.answer || ctx.answer.used === 0;
}

/** What a refused read of logs says to do. */
export const LOGS_INSTEAD = "ask for fewer logs (first), fewer payload fields or aliases, or stream them with GET /api/v1/logs/export";
/** What a refused read of dataset entries says to do. */
export const ENTRIES_INSTEAD = "ask for fewer entries (first) or aliases, or stream them with GET /api/v1/datasets/{id}/export";
/** What a refused read of alignment rows or evaluation results says to do. */
export const ROWS_INSTEAD = "ask for fewer rows (first) or aliases";
