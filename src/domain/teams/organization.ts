import { and, asc, count, desc, eq, gt, inArray, isNull, ne } from "drizzle-orm";
import type { BaseCtx } from "../../context";
import { dbOf, withTx } from "../../context";
import type { Queryable } from "../../db/client";
import { consoleSessions, invitations, memberships, organizations, projectRoles, projects, users } from "../../db/schema";
import type { Deps } from "../../deps";
import { DomainError, parseInput } from "../../errors";
import { randomBase62 } from "../../ids";
import type { Role } from "../../key-scope";
import { errorFields } from "../../logger";
import { forgetAllApiKeys } from "../projects";
import { asOrganizationActor, requireRole, roleAtLeast } from "../projects/key-scopes";
import { handOver } from "./hand-over-keys";
import { type StartedSession, startPersonSession } from "../sessions";
import { type ClientInfo, checkPassword, hashPassword } from "./accounts";
import { AcceptInvitationInput, type CreatedInvitation, InviteMemberInput, type InvitationInfo, type Member, Password, UpdateMemberRoleInput } from "./schemas";

const INVITE_PREFIX = "hone_inv_";
/** How long an invitation link works. */
export const INVITATION_TTL_MS = 7 * 24 * 3_600_000;
/** How long the first-owner link printed at start works. */
export const FIRST_OWNER_TTL_MS = 24 * 3_600_000;
const MAX_PENDING_INVITATIONS = 500;

const hashToken = (token: string) => Bun.SHA256.hash(token, "hex");

/** Where people reach this Hone: HONE_PUBLIC_URL, or the address it listens on. */
export function publicUrlOf(deps: Deps): string {
  if (deps.config.publicUrl) return deps.config.publicUrl;
  const host = deps.config.host === "0.0.0.0" || deps.config.host === "::" ? "localhost" : deps.config.host;
  return `http://${host.includes(":") ? `[${host}]` : host}:${deps.config.port}`;
}

// The token rides in the fragment: browsers never send it to a server, so no access log holds it.
const inviteUrl = (deps: Deps, token: string) => `${publicUrlOf(deps)}/invite#${token}`;

/**
 * The organisation an actor acts in: a person's session's; for a key or the admin token, the
 * organisation of the project they act on. NOT_FOUND when there is none yet.
 */
export async function organizationOf(ctx: BaseCtx & { projectId?: string }): Promise<string> {
  if (ctx.actor.type === "user") return ctx.actor.organizationId;
  if (ctx.projectId) {
    const [row] = await dbOf(ctx).select({ org: projects.organizationId }).from(projects).where(eq(projects.id, ctx.projectId));
    if (row?.org) return row.org;
  }
  throw new DomainError("NOT_FOUND", "This project belongs to no organisation yet: create the first owner with the link Hone prints at start");
}

/** Members of the actor's organisation, owners first (at most 1,000). */
export async function listMembers(orgCtx: BaseCtx & { projectId?: string }): Promise<Member[]> {
  const ctx = asOrganizationActor(orgCtx);
  requireRole(ctx.actor, "viewer", "listing members");
  const org = await organizationOf(ctx);
  const db = dbOf(ctx);
  const rows = await db
    .select({ m: memberships, u: users })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(eq(memberships.organizationId, org))
    .orderBy(asc(memberships.createdAt))
    .limit(1_000);
  const ids = rows.map((r) => r.u.id);
  const narrowed = ids.length
    ? await db
        .select({ userId: projectRoles.userId, projectId: projectRoles.projectId, role: projectRoles.role })
        .from(projectRoles)
        .innerJoin(projects, eq(projects.id, projectRoles.projectId))
        .where(and(inArray(projectRoles.userId, ids), eq(projects.organizationId, org)))
    : [];
  const order: Record<Role, number> = { owner: 0, admin: 1, member: 2, viewer: 3 };
  return rows
    .map(({ m, u }) => ({
      userId: u.id,
      email: u.email,
      name: u.name,
      role: m.role,
      projectRoles: narrowed.filter((n) => n.userId === u.id).map((n) => ({ projectId: n.projectId, role: n.role })),
      sso: u.oidcSubject !== null,
      disabled: u.disabledAt !== null,
      joinedAt: m.createdAt,
    }))
    .sort((a, b) => order[a.role] - order[b.role]);
}

/**
 * Locks the organisations' rows (in id order) for the rest of the transaction. Every change that can
 * take an owner away (a demotion, a removal, disabling an account) takes this lock before it counts
 * the owners, so two such changes in one organisation run one after the other: counting the owners
 * unlocked let two owners demote each other at once and leave none. `no key update` leaves new
 * memberships and projects (which only key-share the row) unblocked.
 */
async function lockOrganizations(tx: Queryable, orgIds: readonly string[]): Promise<void> {
  if (orgIds.length === 0) return;
  await tx
    .select({ id: organizations.id })
    .from(organizations)
    .where(inArray(organizations.id, [...orgIds]))
    .orderBy(asc(organizations.id))
    .for("no key update");
}

/**
 * The acting person's role was read when their request came in: under the lock it is read again,
 * so an owner demoted (or removed, or disabled) a moment ago cannot still act as one.
 */
async function requireStillOwner(ctx: BaseCtx, tx: Queryable, org: string, what: string): Promise<void> {
  if (ctx.actor.type !== "user") return;
  const [me] = await tx
    .select({ role: memberships.role })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(and(eq(memberships.organizationId, org), eq(memberships.userId, ctx.actor.userId), isNull(users.disabledAt)));
  if (me?.role !== "owner") {
    throw new DomainError("FORBIDDEN", `You are no longer an owner of this organisation: ${what} needs an owner`, {
      role: me?.role ?? null,
      neededRole: "owner",
    });
  }
}

/** The enabled owners of an organisation but one person: a disabled owner cannot sign in to manage anything. */
async function otherActiveOwners(tx: Queryable, org: string, userId: string): Promise<number> {
  const [row] = await tx
    .select({ n: count() })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(and(eq(memberships.organizationId, org), eq(memberships.role, "owner"), ne(memberships.userId, userId), isNull(users.disabledAt)));
  return row?.n ?? 0;
}

const NEEDS_AN_OWNER = "An organisation needs at least one owner";

/**
 * An owner changes a member's role in the organisation, or (with projectId) narrows it in one
 * project. The last owner cannot be demoted. Unknown members (or another organisation's): 404.
 */
export async function updateMemberRole(orgCtx: BaseCtx & { projectId?: string }, raw: UpdateMemberRoleInput): Promise<Member> {
  const ctx = asOrganizationActor(orgCtx);
  requireRole(ctx.actor, "owner", "changing members' roles");
  const input = parseInput(UpdateMemberRoleInput, raw);
  const org = await organizationOf(ctx);
  await withTx(ctx, async (_, tx) => {
    await lockOrganizations(tx, [org]);
    await requireStillOwner(ctx, tx, org, "changing members' roles");
    const [m] = await tx
      .select({ role: memberships.role })
      .from(memberships)
      .where(and(eq(memberships.organizationId, org), eq(memberships.userId, input.userId)))
      .for("update");
    if (!m) throw new DomainError("NOT_FOUND", `Member not found: ${input.userId}`);
    if (input.projectId) {
      const [p] = await tx
        .select({ id: projects.id })
        .from(projects)
        .where(and(eq(projects.id, input.projectId), eq(projects.organizationId, org)));
      if (!p) throw new DomainError("NOT_FOUND", `Project not found: ${input.projectId}`);
      if (!roleAtLeast(m.role, input.role)) {
        throw new DomainError("VALIDATION", `A project role narrows the organisation role (${m.role}); ${input.role} is above it`, {
          issues: [{ message: `at most ${m.role}`, path: ["role"] }],
        });
      }
      await tx
        .insert(projectRoles)
        .values({ projectId: input.projectId, userId: input.userId, role: input.role })
        .onConflictDoUpdate({ target: [projectRoles.projectId, projectRoles.userId], set: { role: input.role } });
      return;
    }
    if (m.role === "owner" && input.role !== "owner" && (await otherActiveOwners(tx, org, input.userId)) === 0) {
      throw new DomainError("CONFLICT", `${NEEDS_AN_OWNER}: its last owner cannot be demoted; make another member owner first`);
    }
    await tx
      .update(memberships)
      .set({ role: input.role })
      .where(and(eq(memberships.organizationId, org), eq(memberships.userId, input.userId)));
  });
  // The person's own keys act with their role now.
  forgetAllApiKeys(ctx.deps);
  const member = (await listMembers({ ...ctx, actor: { type: "system", job: "members" } })).find((x) => x.userId === input.userId);
  if (!member) throw new DomainError("NOT_FOUND", `Member not found: ${input.userId}`);
  return member;
}

/** An owner clears a member's narrowed role in one project. */
export async function clearProjectRole(
  orgCtx: BaseCtx & { projectId?: string },
  userId: string,
  projectId: string,
): Promise<{ userId: string; projectId: string }> {
  const ctx = asOrganizationActor(orgCtx);
  requireRole(ctx.actor, "owner", "changing members' roles");
  const org = await organizationOf(ctx);
  const [p] = await dbOf(ctx)
    .select({ id: projects.id })
    .from(projects)
    .where(and(eq(projects.id, projectId), eq(projects.organizationId, org)));
  if (!p) throw new DomainError("NOT_FOUND", `Project not found: ${projectId}`);
  await dbOf(ctx)
    .delete(projectRoles)
    .where(and(eq(projectRoles.projectId, projectId), eq(projectRoles.userId, userId)));
  forgetAllApiKeys(ctx.deps);
  return { userId, projectId };
}

/**
 * An owner removes a member from the organisation: their role goes, and with it every session of
 * theirs in it (at once: a session is checked against its membership on each request). The last
 * owner cannot be removed.
 */
export async function removeMember(
  orgCtx: BaseCtx & { projectId?: string },
  userId: string,
  keys: "stop" | "project" = "stop",
): Promise<{ userId: string; removed: true; keysHanded: number }> {
  const ctx = asOrganizationActor(orgCtx);
  requireRole(ctx.actor, "owner", "removing members");
  const org = await organizationOf(ctx);
  let keysHanded = 0;
  await withTx(ctx, async (_, tx) => {
    await lockOrganizations(tx, [org]);
    await requireStillOwner(ctx, tx, org, "removing members");
    const [m] = await tx
      .select({ role: memberships.role })
      .from(memberships)
      .where(and(eq(memberships.organizationId, org), eq(memberships.userId, userId)))
      .for("update");
    if (!m) throw new DomainError("NOT_FOUND", `Member not found: ${userId}`);
    if (m.role === "owner" && (await otherActiveOwners(tx, org, userId)) === 0) {
      throw new DomainError("CONFLICT", `${NEEDS_AN_OWNER}: its last owner cannot be removed`);
    }
    await tx.delete(memberships).where(and(eq(memberships.organizationId, org), eq(memberships.userId, userId)));
    const orgProjects = tx.select({ id: projects.id }).from(projects).where(eq(projects.organizationId, org));
    await tx.delete(projectRoles).where(and(eq(projectRoles.userId, userId), inArray(projectRoles.projectId, orgProjects)));
    await tx
      .update(consoleSessions)
      .set({ revokedAt: ctx.deps.clock() })
      .where(and(eq(consoleSessions.userId, userId), eq(consoleSessions.organizationId, org), isNull(consoleSessions.revokedAt)));
    // Their own keys stop with them (authentication checks the maker's membership), unless handed
    // to their projects in the same change.
    if (keys === "project") keysHanded = await handOver(tx, org, userId, null);
  });
  // Keys this process holds are read again: the person's keys stop here at once (elsewhere within HONE_API_KEY_CACHE_MS).
  forgetAllApiKeys(ctx.deps);
  return { userId, removed: true, keysHanded };
}

/**
 * An owner disables (or enables) a member's account: a disabled person cannot sign in, and their
 * sessions end. The account is the person's in every organisation, so it cannot be disabled while
 * it is the last enabled owner of any of them.
 */
export async function setMemberDisabled(orgCtx: BaseCtx & { projectId?: string }, userId: string, disabled: boolean): Promise<Member> {
  const ctx = asOrganizationActor(orgCtx);
  requireRole(ctx.actor, "owner", "disabling members");
  const org = await organizationOf(ctx);
  if (ctx.actor.type === "user" && ctx.actor.userId === userId) throw new DomainError("CONFLICT", "You cannot disable your own account");
  await withTx(ctx, async (_, tx) => {
    const ownedBy = async () =>
      (
        await tx
          .select({ org: memberships.organizationId })
          .from(memberships)
          .where(and(eq(memberships.userId, userId), eq(memberships.role, "owner")))
      ).map((r) => r.org);
    const locked = new Set<string>();
    let owned = disabled ? await ownedBy() : [];
    // Read again once locked: the person may have been made an owner elsewhere in between.
    for (let fresh = [org, ...owned]; fresh.length; fresh = owned.filter((o) => !locked.has(o))) {
      for (const o of fresh) locked.add(o);
      await lockOrganizations(tx, fresh);
      if (disabled) owned = await ownedBy();
    }
    await requireStillOwner(ctx, tx, org, "disabling members");
    const [m] = await tx
      .select({ role: memberships.role })
      .from(memberships)
      .where(and(eq(memberships.organizationId, org), eq(memberships.userId, userId)));
    if (!m) throw new DomainError("NOT_FOUND", `Member not found: ${userId}`);
    for (const o of owned) {
      if ((await otherActiveOwners(tx, o, userId)) === 0) {
        throw new DomainError(
          "CONFLICT",
          `${NEEDS_AN_OWNER}: this account is the last enabled owner of ${o === org ? "this organisation" : "another organisation"}; make another member owner first`,
        );
      }
    }
    await tx
      .update(users)
      .set({ disabledAt: disabled ? ctx.deps.clock() : null })
      .where(eq(users.id, userId));
  });
  forgetAllApiKeys(ctx.deps);
  const member = (await listMembers({ ...ctx, actor: { type: "system", job: "members" } })).find((x) => x.userId === userId);
  if (!member) throw new DomainError("NOT_FOUND", `Member not found: ${userId}`);
  return member;
}

const toInvitationInfo = (r: typeof invitations.$inferSelect, by: string | null): InvitationInfo => ({
  id: r.id,
  email: r.email,
  role: r.role,
  invitedBy: by,
  createdAt: r.createdAt,
  expiresAt: r.expiresAt,
  acceptedAt: r.acceptedAt,
  revokedAt: r.revokedAt,
});

/**
 * An owner or admin invites someone by email with a role (an admin up to admin). The link is
 * returned once, to be passed on; it is emailed too when HONE_SMTP_URL is set.
 */
export async function inviteMember(orgCtx: BaseCtx & { projectId?: string }, raw: InviteMemberInput): Promise<CreatedInvitation> {
  const ctx = asOrganizationActor(orgCtx);
  requireRole(ctx.actor, "admin", "inviting members");
  const input = parseInput(InviteMemberInput, raw);
  if (input.role === "owner") requireRole(ctx.actor, "owner", "inviting an owner");
  const org = await organizationOf(ctx);
  const db = dbOf(ctx);
  const now = ctx.deps.clock();
  const [pending] = await db
    .select({ n: count() })
    .from(invitations)
    .where(and(eq(invitations.organizationId, org), isNull(invitations.acceptedAt), isNull(invitations.revokedAt), gt(invitations.expiresAt, now)));
  if ((pending?.n ?? 0) >= MAX_PENDING_INVITATIONS) {
    throw new DomainError("CONFLICT", `An organisation may have at most ${MAX_PENDING_INVITATIONS} open invitations: revoke some first`);
  }
  const [already] = await db
    .select({ id: users.id })
    .from(users)
    .innerJoin(memberships, and(eq(memberships.userId, users.id), eq(memberships.organizationId, org)))
    .where(eq(users.email, input.email));
  if (already) throw new DomainError("CONFLICT", `${input.email} is already a member of this organisation`);
  const token = INVITE_PREFIX + randomBase62(40);
  const invitedBy = ctx.actor.type === "user" ? ctx.actor.email : ctx.actor.type === "apiKey" ? `key ${ctx.actor.keyId}` : ctx.actor.type;
  const [row] = await db
    .insert(invitations)
    .values({
      id: ctx.deps.ids("invitation"),
      organizationId: org,
      email: input.email,
      role: input.role,
      tokenHash: hashToken(token),
      invitedBy,
      createdAt: now,
      expiresAt: new Date(now.getTime() + INVITATION_TTL_MS),
    })
    .returning();
  const url = inviteUrl(ctx.deps, token);
  const emailed = await sendInvitation(ctx.deps, input.email, url, input.role);
  return { ...toInvitationInfo(row!, invitedBy), url, token, emailed };
}

async function sendInvitation(deps: Deps, to: string, url: string, role: Role): Promise<boolean> {
  const smtp = deps.config.smtp;
  if (!smtp) return false;
  try {
    const { createTransport } = await import("nodemailer");
    const transport = createTransport(smtp.url);
    const deadline = new Promise<never>((_, reject) => setTimeout(() => reject(new Error("the mail server did not answer within 15 s")), 15_000).unref());
    await Promise.race([
      deadline,
      transport.sendMail({
        from: smtp.from,
        to,
        subject: "You are invited to Hone",
        text: `You are invited to join an organisation on Hone as ${role}.\n\nAccept within 7 days: ${url}\n\nThe link works once.`,
      }),
    ]);
    transport.close();
    return true;
  } catch (err) {
    deps.logger.warn("could not email an invitation", { to, ...errorFields(err) });
    return false;
  }
}

/** The organisation's invitations, newest first (at most 200). */
export async function listInvitations(orgCtx: BaseCtx & { projectId?: string }): Promise<InvitationInfo[]> {
  const ctx = asOrganizationActor(orgCtx);
  requireRole(ctx.actor, "admin", "listing invitations");
  const org = await organizationOf(ctx);
  const rows = await dbOf(ctx).select().from(invitations).where(eq(invitations.organizationId, org)).orderBy(desc(invitations.createdAt)).limit(200);
  return rows.map((r) => toInvitationInfo(r, r.invitedBy));
}

export async function revokeInvitation(orgCtx: BaseCtx & { projectId?: string }, id: string): Promise<{ id: string; revoked: true }> {
  const ctx = asOrganizationActor(orgCtx);
  requireRole(ctx.actor, "admin", "revoking invitations");
  const org = await organizationOf(ctx);
  const [row] = await dbOf(ctx)
    .update(invitations)
    .set({ revokedAt: ctx.deps.clock() })
    .where(and(eq(invitations.id, id), eq(invitations.organizationId, org), isNull(invitations.acceptedAt), isNull(invitations.revokedAt)))
    .returning({ id: invitations.id });
  if (!row) throw new DomainError("NOT_FOUND", `Open invitation not found: ${id}`);
  return { id, revoked: true };
}

/** Whether anyone has an account yet. */
export async function anyUser(deps: Deps): Promise<boolean> {
  const [row] = await deps.database.db.select({ id: users.id }).from(users).limit(1);
  return !!row;
}

/**
 * At start, with no user yet: a link that creates the first owner (and their organisation, which
 * takes in every project made before). Earlier unused links are revoked. Null once a user exists.
 */
export async function firstOwnerLink(deps: Deps, baseUrl: string = publicUrlOf(deps)): Promise<string | null> {
  const db = deps.database.db;
  const [anyone] = await db.select({ id: users.id }).from(users).limit(1);
  if (anyone) return null;
  const now = deps.clock();
  const token = INVITE_PREFIX + randomBase62(40);
  await db.transaction(async (tx) => {
    await tx
      .update(invitations)
      .set({ revokedAt: now })
      .where(and(isNull(invitations.organizationId), isNull(invitations.acceptedAt), isNull(invitations.revokedAt)));
    await tx.insert(invitations).values({
      id: deps.ids("invitation"),
      organizationId: null,
      email: null,
      role: "owner",
      tokenHash: hashToken(token),
      invitedBy: "first run",
      createdAt: now,
      expiresAt: new Date(now.getTime() + FIRST_OWNER_TTL_MS),
    });
  });
  return `${baseUrl}/invite#${token}`;
}

export type InvitationPreview = { email: string | null; role: Role; organization: string | null; firstOwner: boolean; existingUser: boolean; expiresAt: Date };

/** What an invitation link offers, for the page that accepts it; 404 when unknown, 409 used, 410-like 400 expired. */
export async function previewInvitation(deps: Deps, token: string): Promise<InvitationPreview> {
  const row = await openInvitation(deps, token);
  const [org] = row.organizationId
    ? await deps.database.db.select({ name: organizations.name }).from(organizations).where(eq(organizations.id, row.organizationId))
    : [];
  const [existing] = row.email ? await deps.database.db.select({ id: users.id }).from(users).where(eq(users.email, row.email)) : [];
  return {
    email: row.email,
    role: row.role,
    organization: org?.name ?? null,
    firstOwner: row.organizationId === null,
    existingUser: !!existing,
    expiresAt: row.expiresAt,
  };
}

async function openInvitation(deps: Deps, token: string) {
  if (!token.startsWith(INVITE_PREFIX) || token.length > 100)
    throw new DomainError("NOT_FOUND", "This invitation link is not valid: check that it was copied whole");
  const [row] = await deps.database.db
    .select()
    .from(invitations)
    .where(eq(invitations.tokenHash, hashToken(token)));
  if (!row) throw new DomainError("NOT_FOUND", "This invitation link is not valid: check that it was copied whole");
  if (row.acceptedAt) throw new DomainError("CONFLICT", "This invitation has already been used: sign in, or ask for a new one");
  if (row.revokedAt) throw new DomainError("CONFLICT", "This invitation was revoked: ask for a new one");
  if (row.expiresAt <= deps.clock()) throw new DomainError("VALIDATION", "This invitation has expired: ask for a new one", { expired: true });
  return row;
}

/**
 * Accepts an invitation and signs the person in. A new person sets a password (the stated rule);
 * someone with an account gives theirs. The first-owner link makes the organisation too. Single
 * use: the claim is one conditional update, so two parallel accepts cannot both pass.
 */
export async function acceptInvitation(deps: Deps, raw: AcceptInvitationInput, client: ClientInfo, via?: { ssoUserId: string }): Promise<StartedSession> {
  const input = parseInput(AcceptInvitationInput, raw);
  const row = await openInvitation(deps, input.token);
  const db = deps.database.db;
  const email = row.email ?? input.email;
  if (!email && !via) throw new DomainError("VALIDATION", "Enter your email address", { issues: [{ message: "required", path: ["email"] }] });
  const [existing] = via ? await db.select().from(users).where(eq(users.id, via.ssoUserId)) : await db.select().from(users).where(eq(users.email, email!));
  let passwordHash: string | null = null;
  if (existing) {
    if (existing.disabledAt) throw new DomainError("FORBIDDEN", "This account is disabled");
    if (!via) {
      if (!input.password || !(await checkPassword(deps, existing.email, input.password, existing.passwordHash, client.address))) {
        throw new DomainError("UNAUTHORIZED", `An account with ${email} exists: enter its password to accept`);
      }
    }
  } else {
    const checked = Password.safeParse(input.password ?? "");
    if (!checked.success) {
      throw new DomainError("VALIDATION", `Choose a password: ${checked.error.issues[0]!.message}`, {
        issues: checked.error.issues.map((i) => ({ message: i.message, path: ["password"] })),
      });
    }
    passwordHash = await hashPassword(checked.data);
  }
  const now = deps.clock();
  const userId = await db.transaction(async (tx) => {
    const [claimed] = await tx
      .update(invitations)
      .set({ acceptedAt: now })
      .where(and(eq(invitations.id, row.id), isNull(invitations.acceptedAt), isNull(invitations.revokedAt), gt(invitations.expiresAt, now)))
      .returning({ id: invitations.id });
    if (!claimed) throw new DomainError("CONFLICT", "This invitation has already been used: sign in, or ask for a new one");
    let orgId = row.organizationId;
    if (!orgId) {
      const [someone] = await tx.select({ id: users.id }).from(users).limit(1);
      if (someone) throw new DomainError("CONFLICT", "The first owner already exists: sign in, or ask an owner for an invitation");
      orgId = deps.ids("organization");
      await tx.insert(organizations).values({ id: orgId, name: input.organizationName ?? "Default", createdAt: now });
      // Projects made before organisations (or by the admin token) join the first one.
      await tx.update(projects).set({ organizationId: orgId }).where(isNull(projects.organizationId));
    }
    const id = existing?.id ?? deps.ids("user");
    if (!existing) await tx.insert(users).values({ id, email: email!, name: input.name ?? null, passwordHash, createdAt: now });
    await tx
      .insert(memberships)
      .values({ organizationId: orgId, userId: id, role: row.role, createdAt: now })
      .onConflictDoUpdate({ target: [memberships.organizationId, memberships.userId], set: { role: row.role } });
    await tx.update(invitations).set({ acceptedBy: id }).where(eq(invitations.id, row.id));
    return { id, orgId };
  });
  return startPersonSession(deps, db, { userId: userId.id, organizationId: userId.orgId, ...client });
}

export type OrganizationInfo = { id: string; name: string; role: Role };

/** The organisations a person belongs to. */
export async function listMyOrganizations(deps: Deps, userId: string): Promise<OrganizationInfo[]> {
  return deps.database.db
    .select({ id: organizations.id, name: organizations.name, role: memberships.role })
    .from(memberships)
    .innerJoin(organizations, eq(organizations.id, memberships.organizationId))
    .where(eq(memberships.userId, userId))
    .orderBy(asc(memberships.createdAt))
    .limit(100);
}

/** The projects of the actor's organisation, oldest first (at most 1,000). */
export async function listOrganizationProjects(orgCtx: BaseCtx & { projectId?: string }): Promise<{ id: string; name: string; createdAt: Date }[]> {
  const ctx = asOrganizationActor(orgCtx);
  requireRole(ctx.actor, "viewer", "listing projects");
  const org = await organizationOf(ctx);
  return dbOf(ctx)
    .select({ id: projects.id, name: projects.name, createdAt: projects.createdAt })
    .from(projects)
    .where(eq(projects.organizationId, org))
    .orderBy(asc(projects.createdAt), asc(projects.id))
    .limit(1_000);
}

/** The organisation a new project made by the admin token joins: the oldest, when there is one. */
export async function defaultOrganization(ctx: BaseCtx): Promise<string | null> {
  const [row] = await dbOf(ctx).select({ id: organizations.id }).from(organizations).orderBy(asc(organizations.createdAt), asc(organizations.id)).limit(1);
  return row?.id ?? null;
}
