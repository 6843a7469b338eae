import type { Deps } from "../deps";
import { DomainError } from "../../core/errors";
import { isApiKeyShaped, type Refusal, SIGN_IN_MAX_FAILURES, type SignInThrottle } from "./throttle";

export { createSignInThrottle, isApiKeyShaped, SIGN_IN_MAX_FAILURES, SIGN_IN_WINDOW_MS, type SignInThrottle } from "./throttle";

/** The throttle of this process (one per deps, built with them on their clock). */
export function signInThrottleOf(deps: Deps): SignInThrottle {
  return deps.caches.signIns;
}

export type CredentialAttempt<T> = {
  /** The token presented (a bearer token or what was typed at sign-in). */
  token: string;
  /** Where it comes from; worked out only when a failure is counted or checked for. */
  address: () => string;
  /** Words of the refusal: a console sign-in, or a request with a bearer token. */
  kind: "sign-in" | "bearer";
  /** The token as a project API key; throws UNAUTHORIZED when it is none. */
  apiKey: () => Promise<T>;
  /** The token as anything else (the admin token), compared at once; null when it is not. */
  other: () => T | null;
};

/**
 * Checks a credential under the sign-in throttle. A well-formed API key is checked first, always:
 * a valid key is never refused (and the gateway's calls never touch the throttle); an invalid one
 * is refused while its address or prefix must wait. Any other token (it could be the admin token)
 * is not even compared while they must wait. Refused attempts are not counted, so Retry-After holds.
 */
export async function checkCredential<T>(deps: Deps, attempt: CredentialAttempt<T>): Promise<T> {
  const throttle = signInThrottleOf(deps);
  const { token } = attempt;
  if (isApiKeyShaped(token)) {
    try {
      return await attempt.apiKey();
    } catch (err) {
      if (!isUnauthorized(err)) throw err;
      const address = attempt.address();
      const refused = throttle.refusal(address, token);
      if (refused) throw rateLimited(refused, attempt.kind);
      const counted = throttle.fail(address, token);
      const other = attempt.other();
      if (other === null) throw err;
      counted.undo();
      return other;
    }
  }
  const address = attempt.address();
  const refused = throttle.refusal(address, token);
  if (refused) throw rateLimited(refused, attempt.kind);
  // Counted before the check and taken back when it succeeds: parallel guesses cannot all pass the
  // refusal above before the first of them has failed.
  const counted = throttle.fail(address, token);
  try {
    const result = attempt.other() ?? (await attempt.apiKey());
    counted.undo();
    return result;
  } catch (err) {
    if (!isUnauthorized(err)) counted.undo();
    throw err;
  }
}

const isUnauthorized = (err: unknown) => err instanceof DomainError && err.code === "UNAUTHORIZED";

function rateLimited(refusal: Refusal, kind: CredentialAttempt<unknown>["kind"]): DomainError {
  const retryAfterSeconds = Math.max(1, Math.ceil(refusal.retryAfterMs / 1000));
  const what = kind === "sign-in" ? "failed sign-ins" : "requests with a wrong API key or admin token";
  const from = refusal.scope === "address" ? "from this address" : "with a token that starts like this one";
  return new DomainError("RATE_LIMITED", `Too many ${what} ${from} (at most ${SIGN_IN_MAX_FAILURES} a minute): try again in ${retryAfterSeconds} s`, {
    retryAfterSeconds,
    scope: refusal.scope,
  });
}
