import { and, asc, eq } from "drizzle-orm";
import type { Queryable } from "../../db/client";
import { consoleSessions, memberships, projects } from "../../db/schema";
import type { Deps } from "../deps";
import { DomainError } from "../../core/errors";
import { findLiveSession, hashSessionToken, newSessionToken } from "./internal";
import type { StartedSession } from "./schemas";
import { purgeDeadSessions } from "./start-session";

export type PersonSignIn = { userId: string; organizationId?: string; address: string; userAgent: string | null };

/**
 * Starts a person's console session in one of their organisations (the given one, or the one they
 * joined first) on its oldest project. The token returned is the only copy of the secret.
 */
export async function startPersonSession(deps: Deps, db: Queryable, who: PersonSignIn): Promise<StartedSession> {
  const now = deps.clock();
  const [membership] = await db
    .select({ organizationId: memberships.organizationId })
    .from(memberships)
    .where(and(eq(memberships.userId, who.userId), who.organizationId ? eq(memberships.organizationId, who.organizationId) : undefined))
    .orderBy(asc(memberships.createdAt))
    .limit(1);
  if (!membership) throw new DomainError("FORBIDDEN", "This account is not a member of any organisation: ask an owner to invite you again");
  const [project] = await db
    .select({ id: projects.id })
    .from(projects)
    .where(eq(projects.organizationId, membership.organizationId))
    .orderBy(asc(projects.createdAt), asc(projects.id))
    .limit(1);
  const token = newSessionToken();
  const tokenHash = hashSessionToken(token);
  await db.insert(consoleSessions).values({
    id: deps.ids("session"),
    tokenHash,
    userId: who.userId,
    organizationId: membership.organizationId,
    projectId: project?.id ?? null,
    apiKeyId: null,
    isAdmin: false,
    address: who.address.slice(0, 100),
    userAgent: who.userAgent?.slice(0, 300) ?? null,
    createdAt: now,
    lastSeenAt: now,
    expiresAt: new Date(now.getTime() + deps.config.sessionMaxMs),
  });
  await purgeDeadSessions({ deps, actor: { type: "system", job: "sessions" }, requestId: "sign-in", tx: db }, now);
  const session = await findLiveSession(db, deps, tokenHash);
  if (!session) throw new DomainError("INTERNAL", "The new session could not be read back");
  const { projectId: _p, apiKeyId: _k, keyGrant: _g, ...info } = session;
  return { token, session: info };
}
