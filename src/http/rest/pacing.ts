// Long streams (exports, uploads) move hundreds of megabytes through this process: a garbage
// collection every GC_EVERY_BYTES keeps its memory flat (pieces are garbage as soon as they are
// written; without it memory grows until the next full collection). The exports' verbs also give
// the event loop a turn between pages (domain/yield-turn.ts).

const GC_EVERY_BYTES = 32 * 1024 * 1024;

export type Pacer = {
  /** Counts a piece of `chars` characters that went out, collecting when due. */
  count(chars: number): void;
};

export function createPacer(): Pacer {
  let since = 0;
  const count = (chars: number) => {
    since += chars;
    if (since > GC_EVERY_BYTES) {
      Bun.gc(true);
      since = 0;
    }
  };
  return {
    count,
  };
}

/** Runs `start` holding a fair-share slot: released at once if it throws (a bad filter is a 400 that holds nothing). */
export async function heldUntilDone<T>(release: () => void, start: () => Promise<T>): Promise<T> {
  try {
    return await start();
  } catch (err) {
    release();
    throw err;
  }
}
