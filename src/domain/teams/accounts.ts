import { and, desc, eq, gt, isNull, ne } from "drizzle-orm";
import type { BaseCtx } from "../context";
import { dbOf } from "../context";
import { consoleSessions, users } from "../../db/schema";
import type { Deps } from "../deps";
import { DomainError, parseInput } from "../../core/errors";
import { type ResolvedSession, type StartedSession, startPersonSession, SIGN_IN_MAX_FAILURES, signInThrottleOf } from "../sessions";
import { ChangePasswordInput, PasswordSignInInput } from "./schemas";

/** argon2id at Bun's defaults (64 MiB, 2 passes). */
export const hashPassword = (password: string) => Bun.password.hash(password, { algorithm: "argon2id" });

// Compared against when the email is unknown, so an unknown account takes as long as a wrong password.
let dummyHash: Promise<string> | null = null;

export type ClientInfo = { address: string; userAgent: string | null };

// The throttle counts failures per client address and per account (a hash of the email, so the
// bucket names no one).
const accountToken = (email: string) => `acct:${Bun.SHA256.hash(email, "hex").slice(0, 7)}`;

/**
 * Signs a person in with their email and password. Failed attempts are slowed per account and per
 * address (10 a minute each, then 429 with Retry-After); the answer never says whether the email
 * is known.
 */
export async function signInWithPassword(deps: Deps, raw: PasswordSignInInput, client: ClientInfo): Promise<StartedSession> {
  const input = parseInput(PasswordSignInInput, raw);
  const db = deps.database.db;
  const [user] = await db.select().from(users).where(eq(users.email, input.email));
  if (!(await checkPassword(deps, input.email, input.password, user?.passwordHash ?? null, client.address))) {
    throw new DomainError("UNAUTHORIZED", "Wrong email or password");
  }
  if (user!.disabledAt) throw new DomainError("FORBIDDEN", "This account is disabled: ask an owner of your organisation");
  return startPersonSession(deps, db, { userId: user!.id, ...client });
}

/**
 * A password against an account's hash (null: no account, or none with a password) under the
 * sign-in throttle: failures count per account and per address, and while either must wait the
 * attempt is refused (429) before any check. An unknown account costs the same argon2 check.
 * Every password check goes through here (sign-in, accepting an invitation, changing a password),
 * so guesses spread over them share one count, and none of them is a way to burn argon2 at will.
 */
export async function checkPassword(deps: Deps, email: string, password: string, hash: string | null, address: string): Promise<boolean> {
  const throttle = signInThrottleOf(deps);
  const token = accountToken(email);
  const refused = throttle.refusal(address, token);
  if (refused) {
    const retryAfterSeconds = Math.max(1, Math.ceil(refused.retryAfterMs / 1000));
    const from = refused.scope === "address" ? "from this address" : "for this account";
    throw new DomainError("RATE_LIMITED", `Too many wrong passwords ${from} (at most ${SIGN_IN_MAX_FAILURES} a minute): try again in ${retryAfterSeconds} s`, {
      retryAfterSeconds,
      scope: refused.scope,
    });
  }
  const counted = throttle.fail(address, token);
  dummyHash ??= hashPassword("not the password of anyone at all");
  const ok = (await Bun.password.verify(password, hash ?? (await dummyHash))) && hash !== null;
  if (ok) counted.undo();
  return ok;
}

/**
 * A person changes their password; their other sessions end. The current password is checked under
 * the sign-in throttle: a session left open is no way around it to guess the password.
 */
export async function changePassword(
  deps: Deps,
  session: ResolvedSession,
  raw: ChangePasswordInput,
  client: Pick<ClientInfo, "address">,
): Promise<{ changed: true; endedSessions: number }> {
  if (!session.user) throw new DomainError("FORBIDDEN", "Only a person signed in as themselves has a password");
  const input = parseInput(ChangePasswordInput, raw);
  const db = deps.database.db;
  const [user] = await db.select({ email: users.email, passwordHash: users.passwordHash }).from(users).where(eq(users.id, session.user.id));
  if (!user) throw new DomainError("NOT_FOUND", "Your account no longer exists");
  if (user.passwordHash) {
    if (!input.currentPassword || !(await checkPassword(deps, user.email, input.currentPassword, user.passwordHash, client.address))) {
      throw new DomainError("VALIDATION", "The current password is wrong", { issues: [{ message: "wrong password", path: ["currentPassword"] }] });
    }
  }
  if (input.newPassword.toLowerCase().includes(session.user.email.split("@")[0]!.toLowerCase())) {
    throw new DomainError("VALIDATION", "A password may not contain your email's name", {
      issues: [{ message: "contains the email's name", path: ["newPassword"] }],
    });
  }
  await db
    .update(users)
    .set({ passwordHash: await hashPassword(input.newPassword) })
    .where(eq(users.id, session.user.id));
  const ended = await db
    .update(consoleSessions)
    .set({ revokedAt: deps.clock() })
    .where(and(eq(consoleSessions.userId, session.user.id), ne(consoleSessions.id, session.id), isNull(consoleSessions.revokedAt)))
    .returning({ id: consoleSessions.id });
  return { changed: true, endedSessions: ended.length };
}

export type SessionListing = {
  id: string;
  current: boolean;
  createdAt: Date;
  lastSeenAt: Date;
  expiresAt: Date;
  address: string | null;
  userAgent: string | null;
};

/** A person's live sessions, newest first (at most 100). */
export async function listMySessions(ctx: BaseCtx, session: ResolvedSession): Promise<SessionListing[]> {
  if (!session.user) throw new DomainError("FORBIDDEN", "Only a person signed in as themselves has sessions to list");
  const now = ctx.deps.clock();
  const rows = await dbOf(ctx)
    .select()
    .from(consoleSessions)
    .where(and(eq(consoleSessions.userId, session.user.id), isNull(consoleSessions.revokedAt), gt(consoleSessions.expiresAt, now)))
    .orderBy(desc(consoleSessions.createdAt))
    .limit(100);
  return rows
    .filter((r) => r.lastSeenAt.getTime() > now.getTime() - ctx.deps.config.sessionIdleMs)
    .map((r) => ({
      id: r.id,
      current: r.id === session.id,
      createdAt: r.createdAt,
      lastSeenAt: r.lastSeenAt,
      expiresAt: r.expiresAt,
      address: r.address,
      userAgent: r.userAgent,
    }));
}

/** A person ends one of their sessions (another device's, or this one). Unknown or another person's: 404. */
export async function revokeMySession(ctx: BaseCtx, session: ResolvedSession, id: string): Promise<{ id: string; revoked: true }> {
  if (!session.user) throw new DomainError("FORBIDDEN", "Only a person signed in as themselves has sessions to revoke");
  const [row] = await dbOf(ctx)
    .update(consoleSessions)
    .set({ revokedAt: ctx.deps.clock() })
    .where(and(eq(consoleSessions.id, id), eq(consoleSessions.userId, session.user.id), isNull(consoleSessions.revokedAt)))
    .returning({ id: consoleSessions.id });
  if (!row) throw new DomainError("NOT_FOUND", `Session not found: ${id}`);
  return { id, revoked: true };
}
