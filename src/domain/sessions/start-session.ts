import { asc, inArray, lt, or } from "drizzle-orm";
import type { BaseCtx } from "../../context";
import { dbOf } from "../../context";
import { secretsEqual } from "../../crypto";
import { consoleSessions, projects } from "../../db/schema";
import { DomainError, parseInput } from "../../errors";
import { errorFields } from "../../logger";
import { authenticateApiKey } from "../projects";
import { findLiveSession, hashSessionToken, newSessionToken } from "./internal";
import { SignInInput, type StartedSession } from "./schemas";

// Sessions past both limits a day ago are deleted by sign-ins, a bounded number at a time.
const PURGE_AFTER_MS = 24 * 3_600_000;
const PURGE_BATCH = 500;

/**
 * Signs a person in to the console: a project API key starts a session of that key's project; the
 * admin token (when set) starts an admin session on the oldest project, which it may switch. The
 * token returned is the only copy of the session's secret; its hash is stored.
 */
export async function startSession(ctx: BaseCtx, raw: SignInInput): Promise<StartedSession> {
  const input = parseInput(SignInInput, raw);
  const { deps } = ctx;
  const db = dbOf(ctx);
  const adminToken = deps.config.adminToken;
  const now = deps.clock();
  let values: { projectId: string | null; apiKeyId: string | null; isAdmin: boolean };
  if (adminToken && secretsEqual(input.token, adminToken)) {
    const [first] = await db.select({ id: projects.id }).from(projects).orderBy(asc(projects.createdAt), asc(projects.id)).limit(1);
    values = { projectId: first?.id ?? null, apiKeyId: null, isAdmin: true };
  } else {
    let auth: Awaited<ReturnType<typeof authenticateApiKey>>;
    try {
      auth = await authenticateApiKey(deps, `Bearer ${input.token.replace(/\s+/g, "")}`);
    } catch (err) {
      if (err instanceof DomainError && err.code === "UNAUTHORIZED") {
        throw new DomainError("UNAUTHORIZED", "Invalid API key: it is unknown or revoked. Keys start with hone_sk_.");
      }
      throw err;
    }
    values = { projectId: auth.projectId, apiKeyId: auth.keyId, isAdmin: false };
  }
  const token = newSessionToken();
  const tokenHash = hashSessionToken(token);
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
  const { projectId: _p, apiKeyId: _k, ...info } = session;
  return { token, session: info };
}

async function purgeDeadSessions(ctx: BaseCtx, now: Date): Promise<void> {
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
