import { and, asc, count, eq, inArray, isNull, ne } from "drizzle-orm";
import { memberOf } from "./members";
import { organizationOf } from "./organization-of";
import type { BaseCtx } from "../context";
import { dbOf, withTx } from "../context";
import type { Queryable } from "../../db/client";
import { consoleSessions, memberships, organizations, projectRoles, projects, users } from "../../db/schema";
import type { Deps } from "../deps";
import { DomainError, parseInput } from "../../core/errors";
import type { Role } from "../../core/key-scope";
import { forgetAllApiKeys, asOrganizationActor, requireRole, roleAtLeast } from "../projects";
import { handOver } from "./hand-over-keys";
import { type Member, UpdateMemberRoleInput } from "./schemas";

export { organizationOf, publicUrlOf } from "./organization-of";

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
  requireRole(ctx.actor, "owner", "change members' roles");
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
  const member = await memberOf(ctx, input.userId);
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
  requireRole(ctx.actor, "owner", "change members' roles");
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
  requireRole(ctx.actor, "owner", "remove members");
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
  requireRole(ctx.actor, "owner", "disable members");
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
  const member = await memberOf(ctx, userId);
  if (!member) throw new DomainError("NOT_FOUND", `Member not found: ${userId}`);
  return member;
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
  requireRole(ctx.actor, "viewer", "list projects");
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
