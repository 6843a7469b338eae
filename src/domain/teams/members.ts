import { and, eq, inArray, type SQL, sql } from "drizzle-orm";
import { type ListPageInput, orderedPage } from "../list-page";
import { type BaseCtx, dbOf } from "../context";
import { memberships, projectRoles, projects, users } from "../../db/schema";
import { asOrganizationActor, requireRole } from "../projects";
import { organizationOf } from "./organization-of";
import type { Member } from "./schemas";

// The organisation's members: a page of them (owners first), and one of them as listed.

/** Owners, then admins, members and viewers: the order members are listed in. */
const ROLE_RANK = sql`(case ${memberships.role} when 'owner' then 0 when 'admin' then 1 when 'member' then 2 else 3 end)`;

/** A page of the members of the actor's organisation: owners first, then by when they joined (list-page.ts). */
export async function listMembers(orgCtx: BaseCtx & { projectId?: string }, raw?: ListPageInput): Promise<Member[]> {
  const ctx = asOrganizationActor(orgCtx);
  requireRole(ctx.actor, "viewer", "list members");
  const org = await organizationOf(ctx);
  const scope = eq(memberships.organizationId, org);
  const page = await orderedPage(ctx, raw, {
    table: memberships,
    id: memberships.userId,
    by: [ROLE_RANK, memberships.createdAt],
    scope,
    what: "organisation's members",
  });
  return readMembers(ctx, org, and(scope, page.after), page.order, page.limit);
}

/** One member of the actor's organisation, as listed (null: not a member). */
export async function memberOf(orgCtx: BaseCtx & { projectId?: string }, userId: string): Promise<Member | null> {
  const ctx = asOrganizationActor(orgCtx);
  const org = await organizationOf(ctx);
  const [member] = await readMembers(ctx, org, and(eq(memberships.organizationId, org), eq(memberships.userId, userId)), [], 1);
  return member ?? null;
}

async function readMembers(ctx: BaseCtx, org: string, where: SQL | undefined, order: SQL[], limit: number): Promise<Member[]> {
  const db = dbOf(ctx);
  const rows = await db
    .select({ m: memberships, u: users })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(where)
    .orderBy(...order)
    .limit(limit);
  const ids = rows.map((r) => r.u.id);
  const narrowed = ids.length
    ? await db
        .select({ userId: projectRoles.userId, projectId: projectRoles.projectId, role: projectRoles.role })
        .from(projectRoles)
        .innerJoin(projects, eq(projects.id, projectRoles.projectId))
        .where(and(inArray(projectRoles.userId, ids), eq(projects.organizationId, org)))
    : [];
  return rows.map(({ m, u }) => ({
    userId: u.id,
    email: u.email,
    name: u.name,
    role: m.role,
    projectRoles: narrowed.filter((n) => n.userId === u.id).map((n) => ({ projectId: n.projectId, role: n.role })),
    sso: u.oidcSubject !== null,
    disabled: u.disabledAt !== null,
    joinedAt: m.createdAt,
  }));
}
