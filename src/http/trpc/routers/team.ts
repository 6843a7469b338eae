import { ListPageInput } from "../../../domain/list-page";
import { z } from "zod";
import { type AuditEvent, auditLine, AuditPageInput, listAudit } from "../../../domain/audit";
import {
  clearProjectRole,
  ClearProjectRoleInput,
  CreateOrgProjectInput,
  organizationOf,
  IdInput,
  type InvitationInfo,
  inviteMember,
  InviteMemberInput,
  listInvitations,
  listMembers,
  listOrganizationProjects,
  type Member,
  handKeysToProject,
  HandKeysInput,
  listMemberKeys,
  type MemberKey,
  removeMember,
  RemoveMemberInput,
  revokeInvitation,
  setMemberDisabled,
  unlinkSingleSignOn,
  updateMemberRole,
  UpdateMemberRoleInput,
  UserIdInput,
} from "../../../domain/teams";
import { createProject } from "../../../domain/projects";
import { toWireDate } from "../../dates";
import { router, teamProcedure } from "../init";

export const memberOut = (m: Member) => ({ ...m, joinedAt: toWireDate(m.joinedAt) });
const memberKeyOut = (k: MemberKey) => ({ ...k, lastUsedAt: toWireDate(k.lastUsedAt) });
export const invitationOut = (i: InvitationInfo) => ({
  ...i,
  createdAt: toWireDate(i.createdAt),
  expiresAt: toWireDate(i.expiresAt),
  acceptedAt: toWireDate(i.acceptedAt),
  revokedAt: toWireDate(i.revokedAt),
});
export const auditOut = (e: AuditEvent) => ({
  id: e.id,
  createdAt: toWireDate(e.at),
  action: e.verb,
  actor: e.actorLabel ?? e.actorType,
  actorType: e.actorType,
  actorId: e.actorId,
  transport: e.transport,
  resourceType: e.resourceType,
  resourceId: e.resourceId,
  projectId: e.projectId,
  outcome: e.outcome,
  summary: e.summary,
  address: e.address,
  userAgent: e.userAgent,
  requestId: e.requestId,
});

const EXPORT_MAX = 2_000;

/** The organisation: its members (owners manage them), invitations (owners and admins), projects and audit log. */
export const teamRouter = router({
  members: teamProcedure("viewer")
    .input(ListPageInput)
    .query(async ({ ctx, input }) => (await listMembers(ctx.team, input)).map(memberOut)),
  invite: teamProcedure("admin")
    .input(InviteMemberInput)
    .mutation(async ({ ctx, input }) => {
      const created = await inviteMember(ctx.team, input);
      return { ...invitationOut(created), url: created.url, emailed: created.emailed };
    }),
  updateRole: teamProcedure("owner")
    .input(UpdateMemberRoleInput)
    .mutation(async ({ ctx, input }) => memberOut(await updateMemberRole(ctx.team, input))),
  clearProjectRole: teamProcedure("owner")
    .input(ClearProjectRoleInput)
    .mutation(({ ctx, input }) => clearProjectRole(ctx.team, input.userId, input.projectId)),
  /** Removes a member; their own API keys stop, or (keys: "project") become their projects' service keys. */
  remove: teamProcedure("owner")
    .input(RemoveMemberInput)
    .mutation(({ ctx, input }) => removeMember(ctx.team, input.userId, input.keys ?? "stop")),
  /** A member's own API keys in the organisation: what stops when they are removed or disabled. */
  memberKeys: teamProcedure("owner")
    .input(UserIdInput)
    .query(async ({ ctx, input }) => (await listMemberKeys(ctx.team, input.userId)).map(memberKeyOut)),
  /** Hands a member's own keys (all, or those named) to their projects: service keys that outlive them. */
  handKeys: teamProcedure("owner")
    .input(HandKeysInput)
    .mutation(({ ctx, input }) => handKeysToProject(ctx.team, input)),
  setDisabled: teamProcedure("owner")
    .input(UserIdInput.extend({ disabled: z.boolean() }))
    .mutation(async ({ ctx, input }) => memberOut(await setMemberDisabled(ctx.team, input.userId, input.disabled))),
  /** Removes a member's link to their identity at the provider; their next single sign-on links again. */
  unlinkSso: teamProcedure("owner")
    .input(UserIdInput)
    .mutation(async ({ ctx, input }) => memberOut(await unlinkSingleSignOn(ctx.team, input.userId))),
  invitations: teamProcedure("admin")
    .input(ListPageInput)
    .query(async ({ ctx, input }) => (await listInvitations(ctx.team, input)).map(invitationOut)),
  revokeInvitation: teamProcedure("admin")
    .input(IdInput)
    .mutation(({ ctx, input }) => revokeInvitation(ctx.team, input.id)),
  projects: teamProcedure("viewer").query(async ({ ctx }) =>
    (await listOrganizationProjects(ctx.team)).map((p) => ({ id: p.id, name: p.name, createdAt: toWireDate(p.createdAt) })),
  ),
  /** An owner makes a project in the organisation; its first API key is shown once. */
  createProject: teamProcedure("owner")
    .input(CreateOrgProjectInput)
    .mutation(async ({ ctx, input }) => {
      const created = await createProject(ctx.team, { name: input.name, organizationId: await organizationOf(ctx.team) });
      return { projectId: created.projectId, apiKey: created.apiKey };
    }),
  /** The audit log, newest first, filtered and paged (owners and admins). */
  auditLog: teamProcedure("admin")
    .input(AuditPageInput)
    .query(async ({ ctx, input }) => {
      const page = await listAudit(ctx.team, input);
      return { events: page.events.map(auditOut), next: page.next };
    }),
  /** The audit log as JSON lines, newest first, at most 2,000 events per call (page on with `after`). */
  auditExport: teamProcedure("admin")
    .input(AuditPageInput.omit({ first: true }))
    .query(async ({ ctx, input }) => {
      const lines: string[] = [];
      let after = input.after;
      while (lines.length < EXPORT_MAX) {
        const page = await listAudit(ctx.team, { filter: input.filter, after, first: 500 });
        for (const e of page.events) lines.push(auditLine(e));
        if (!page.next) return { jsonl: lines.join("\n") + (lines.length ? "\n" : ""), next: null };
        after = page.next;
      }
      return { jsonl: `${lines.join("\n")}\n`, next: after ?? null };
    }),
});
