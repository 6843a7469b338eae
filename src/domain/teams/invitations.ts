// Invitations: a single-use link to join an organisation with a role, or to create its first owner.
import { and, count, eq, gt, isNull } from "drizzle-orm";
import { type ListPageInput, orderedPage } from "../list-page";
import type { BaseCtx } from "../context";
import { dbOf } from "../context";
import { invitations, memberships, organizations, projects, users } from "../../db/schema";
import type { Deps } from "../deps";
import { DomainError, parseInput } from "../../core/errors";
import { randomBase62 } from "../../lib/ids";
import type { Role } from "../../core/key-scope";
import { errorFields } from "../../core/logger";
import { asOrganizationActor, requireRole } from "../projects";
import { type StartedSession, startPersonSession } from "../sessions";
import { type ClientInfo, checkPassword, hashPassword } from "./accounts";
import { organizationOf, publicUrlOf } from "./organization";
import { AcceptInvitationInput, type CreatedInvitation, InviteMemberInput, type InvitationInfo, Password } from "./schemas";

const INVITE_PREFIX = "hone_inv_";
/** How long an invitation link works. */
export const INVITATION_TTL_MS = 7 * 24 * 3_600_000;
/** How long the first-owner link printed at start works. */
export const FIRST_OWNER_TTL_MS = 24 * 3_600_000;
const MAX_PENDING_INVITATIONS = 500;

const hashToken = (token: string) => Bun.SHA256.hash(token, "hex");

// The token rides in the fragment: browsers never send it to a server, so no access log holds it.
const inviteUrl = (deps: Deps, token: string) => `${publicUrlOf(deps)}/invite#${token}`;

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
  requireRole(ctx.actor, "admin", "invite members");
  const input = parseInput(InviteMemberInput, raw);
  if (input.role === "owner") requireRole(ctx.actor, "owner", "invite an owner");
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

/** A page of the organisation's invitations, newest first (list-page.ts). */
export async function listInvitations(orgCtx: BaseCtx & { projectId?: string }, raw?: ListPageInput): Promise<InvitationInfo[]> {
  const ctx = asOrganizationActor(orgCtx);
  requireRole(ctx.actor, "admin", "list invitations");
  const org = await organizationOf(ctx);
  const scope = eq(invitations.organizationId, org);
  const page = await orderedPage(ctx, raw, {
    table: invitations,
    id: invitations.id,
    by: [invitations.createdAt],
    scope,
    desc: true,
    what: "organisation's invitations",
  });
  const rows = await dbOf(ctx)
    .select()
    .from(invitations)
    .where(and(scope, page.after))
    .orderBy(...page.order)
    .limit(page.limit);
  return rows.map((r) => toInvitationInfo(r, r.invitedBy));
}

export async function revokeInvitation(orgCtx: BaseCtx & { projectId?: string }, id: string): Promise<{ id: string; revoked: true }> {
  const ctx = asOrganizationActor(orgCtx);
  requireRole(ctx.actor, "admin", "revoke invitations");
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
