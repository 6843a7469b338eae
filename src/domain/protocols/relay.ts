import type { Ctx } from "../../context";
import { statusOf } from "../../errors";
import { ClientAborted, type NativeEvent } from "../../providers";
import { asDomainError, CLIENT_CLOSED_MESSAGE, CLIENT_CLOSED_STATUS } from "../completions/call-log";

export type Outcome = { statusCode: number; errorMessage: string | null };

/**
 * A provider's events relayed as they are, each shown to `watch` first (which may settle how the
 * call ended: a failed Response is a failure though its stream ends well). `done` gets the outcome
 * once the stream ends, fails, or the client leaves (499), whichever comes first.
 */
export async function* relayEvents(
  ctx: Ctx,
  upstream: AsyncGenerator<NativeEvent>,
  watch: (e: NativeEvent) => Outcome | undefined | Promise<Outcome | undefined>,
  done: (outcome: Outcome) => void,
): AsyncGenerator<NativeEvent> {
  let settled: Outcome | undefined;
  let outcome: Outcome = { statusCode: CLIENT_CLOSED_STATUS, errorMessage: CLIENT_CLOSED_MESSAGE };
  try {
    for await (const e of upstream) {
      settled = (await watch(e)) ?? settled;
      yield e;
    }
    outcome = settled ?? { statusCode: 200, errorMessage: null };
  } catch (err) {
    if (!(err instanceof ClientAborted)) {
      const e = asDomainError(ctx, err);
      outcome = { statusCode: statusOf(e), errorMessage: e.message };
      throw e;
    }
  } finally {
    done(outcome);
  }
}
