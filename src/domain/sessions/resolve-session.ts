import { eq } from "drizzle-orm";
import { consoleSessions } from "../../db/schema";
import type { Deps } from "../deps";
import { DomainError } from "../../core/errors";
import { errorFields } from "../../core/logger";
import { findLiveSession, hashSessionToken, SESSION_TOKEN_PREFIX } from "./internal";
import type { ResolvedSession } from "./schemas";

// last_seen_at moves at most this often (or a quarter of the idle limit, when that is shorter),
// so an active console costs one write a minute, not one per request.
const TOUCH_RESOLUTION_MS = 60_000;

export const SESSION_ENDED_MESSAGE = "Your console session has ended (signed out, expired, or its API key was revoked); sign in again";

/** The session a console cookie names, or UNAUTHORIZED when it is unknown, ended or expired. */
export async function resolveSession(deps: Deps, token: string): Promise<ResolvedSession> {
  if (!token.startsWith(SESSION_TOKEN_PREFIX) || token.length > 200) throw new DomainError("UNAUTHORIZED", SESSION_ENDED_MESSAGE);
  const db = deps.database.db;
  const session = await findLiveSession(db, deps, hashSessionToken(token));
  if (!session) throw new DomainError("UNAUTHORIZED", SESSION_ENDED_MESSAGE);
  const now = deps.clock();
  const lastSeen = session.idleExpiresAt.getTime() - deps.config.sessionIdleMs;
  if (now.getTime() - lastSeen >= Math.min(TOUCH_RESOLUTION_MS, deps.config.sessionIdleMs / 4)) {
    try {
      await db.update(consoleSessions).set({ lastSeenAt: now }).where(eq(consoleSessions.id, session.id));
      session.idleExpiresAt = new Date(Math.min(now.getTime() + deps.config.sessionIdleMs, session.expiresAt.getTime()));
    } catch (err) {
      deps.logger.warn("could not record console session use", { sessionId: session.id, ...errorFields(err) });
    }
  }
  return session;
}
