import { asc, inArray, lt, or } from "drizzle-orm";
import type { BaseCtx } from "../context";
import { dbOf } from "../context";
import { secretsEqual } from "../../lib/crypto";
import { consoleSessions, projects } from "../../db/schema";
import { DomainError, parseInput } from "../../core/errors";
import { errorFields } from "../../core/logger";
import { type Authenticated, authenticateApiKey } from "../projects";
import { findLiveSession, hashSessionToken, newSessionToken } from "./internal";
import { SignInInput, type StartedSession } from "./schemas";
import { checkCredential } from "./sign-in-throttle";

// Sessions past both limits a day ago are deleted by sign-ins, a bounded number at a time.
const PURGE_AFTER_MS = 24 * 3_600_000;
const PURGE_BATCH = 500;

/**
 * Signs a person in to the console: a project API key starts a session of that key's project; the
 * admin token (when set) starts an admin session on the oldest project, which it may switch. The
 * token returned is the only copy of the session's secret; its hash is stored. Failed sign-ins are
 * throttled per client address (`address`, worked out only when needed) and token prefix.
 */
export async function startSession(ctx: BaseCtx, raw: SignInInput, address: () => string): Promise<StartedSession> {
  const input = parseInput(SignInInput, raw);
  const { deps } = ctx;
  if (!deps.config.consoleKeySignIn) {
    throw new DomainError(
      "FORBIDDEN",
      "Signing in with an API key or the admin token is switched off here (HONE_CONSOLE_KEY_SIGNIN=false): sign in with your email and password or single sign-on",
    );
  }
  const db = dbOf(ctx);
  const adminToken = deps.config.adminToken;
  const now = deps.clock();
  const token = input.token.replace(/\s+/g, "");
  const who = await checkCredential<{ apiKey: Authenticated } | { admin: true }>(deps, {
    token,
    address,
    kind: "sign-in",
    other: () => (adminToken && secretsEqual(input.token, adminToken) ? { admin: true } : null),
    apiKey: async () => {
      try {
        return { apiKey: await authenticateApiKey(deps, `Bearer ${token}`) };
      } catch (err) {
        if (err instanceof DomainError && err.code === "UNAUTHORIZED") {
          throw new DomainError("UNAUTHORIZED", "Invalid API key: it is unknown or revoked. Keys start with hone_sk_.");
        }
        throw err;
      }
    },
  });
  let values: { projectId: string | null; apiKeyId: string | null; isAdmin: boolean };
  if ("admin" in who) {
    const [first] = await db.select({ id: projects.id }).from(projects).orderBy(asc(projects.createdAt), asc(projects.id)).limit(1);
    values = { projectId: first?.id ?? null, apiKeyId: null, isAdmin: true };
  } else {
    if (!who.apiKey.grant.scopes.includes("read")) {
      throw new DomainError("FORBIDDEN", "This API key lacks the `read` scope: it cannot sign in to the console (it is for the gateway only)", {
        missingScope: "read",
      });
    }
    values = { projectId: who.apiKey.projectId, apiKeyId: who.apiKey.keyId, isAdmin: false };
  }
  const sessionToken = newSessionToken();
  const tokenHash = hashSessionToken(sessionToken);
  await db.insert(consoleSessions).values({
    id: deps.ids("session"),
    tokenHash,
    ...values,
    createdAt: now,
    lastSeenAt: now,
    expiresAt: new Date(now.getTime() + deps.config.sessionMaxMs),
  });
  await purgeDeadSessions(ctx, now);
  const session = await findLiveSession(db, deps, tokenHash);
  if (!session) throw new DomainError("INTERNAL", "The new session could not be read back");
  const { projectId: _p, apiKeyId: _k, keyGrant: _g, ...info } = session;
  return { token: sessionToken, session: info };
}

export async function purgeDeadSessions(ctx: BaseCtx, now: Date): Promise<void> {
  const before = new Date(now.getTime() - PURGE_AFTER_MS);
  const idleBefore = new Date(before.getTime() - ctx.deps.config.sessionIdleMs);
  try {
    const deadCond = or(lt(consoleSessions.expiresAt, before), lt(consoleSessions.lastSeenAt, idleBefore), lt(consoleSessions.revokedAt, before));
    const dead = dbOf(ctx).select({ id: consoleSessions.id }).from(consoleSessions).where(deadCond).limit(PURGE_BATCH);
    await dbOf(ctx).delete(consoleSessions).where(inArray(consoleSessions.id, dead));
  } catch (err) {
    ctx.deps.logger.warn("could not purge expired console sessions", errorFields(err));
  }
}
