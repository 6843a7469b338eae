import type { Ctx } from "../context";
import { statusOf } from "../../core/errors";
import { type Batches, ClientAborted, type NativeEvent } from "../../providers";
import { asDomainError, CLIENT_CLOSED_MESSAGE, CLIENT_CLOSED_STATUS } from "../calls";

export type Outcome = { statusCode: number; errorMessage: string | null };

/**
 * A provider's events relayed as they are, a batch (what one packet completed) at a time, each shown
 * to `watch` first (which may settle how the call ended: a failed Response is a failure though its
 * stream ends well). `done` gets the outcome once, when the stream ends, fails, or the client
 * leaves (499), whichever comes first. No generator sits between the upstream and the client: one
 * wait per packet, whatever the number of events in it.
 */
export function relayEvents(
  ctx: Ctx,
  upstream: Batches<NativeEvent>,
  watch: (e: NativeEvent) => Outcome | undefined,
  done: (outcome: Outcome) => void | Promise<void>,
): Batches<NativeEvent> {
  let settled: Outcome | undefined;
  let finished = false;
  const finish = (outcome: Outcome): void | Promise<void> => {
    if (finished) return;
    finished = true;
    return done(outcome);
  };
  return {
    async next() {
      if (finished) return { events: [], done: true };
      try {
        const batch = await upstream.next();
        for (const e of batch.events) settled = watch(e) ?? settled;
        // What `done` does for a whole stream (the cache write) is over before its last events go.
        if (batch.done) await finish(settled ?? { statusCode: 200, errorMessage: null });
        return batch;
      } catch (err) {
        upstream.close();
        if (err instanceof ClientAborted) {
          void finish({ statusCode: CLIENT_CLOSED_STATUS, errorMessage: CLIENT_CLOSED_MESSAGE });
          return { events: [], done: true };
        }
        const e = asDomainError(ctx, err);
        void finish({ statusCode: statusOf(e), errorMessage: e.message });
        throw e;
      }
    },
    close() {
      upstream.close();
      void finish({ statusCode: CLIENT_CLOSED_STATUS, errorMessage: CLIENT_CLOSED_MESSAGE });
    },
  };
}
