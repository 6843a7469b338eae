import { type AuditEvent, AuditFilter, listAudit } from "../../../domain/audit";
import {
  inviteMember,
  InviteMemberInput,
  listMembers,
  type Member,
  removeMember,
  RemoveMemberInput,
  updateMemberRole,
  UpdateMemberRoleInput,
} from "../../../domain/teams";
import { asInputOf } from "../../../core/verb-input";
import { builder } from "../builder";
import type { GqlContext } from "../builder";

/** Organisation work acts as the principal: a person's session (their role), a key (its scopes), or the admin token. */
const teamCtx = (c: GqlContext) => c.principal.ctx;

const ProjectRoleRef = builder.objectRef<{ projectId: string; role: string }>("ProjectRole").implement({
  fields: (t) => ({ projectId: t.exposeID("projectId"), role: t.exposeString("role") }),
});

const MemberRef = builder.objectRef<Member>("Member").implement({
  description: "A person in the organisation, with their role (viewer, member, admin, owner) and any narrowed per project",
  fields: (t) => ({
    userId: t.exposeID("userId"),
    email: t.exposeString("email"),
    name: t.exposeString("name", { nullable: true }),
    role: t.exposeString("role"),
    projectRoles: t.field({ type: [ProjectRoleRef], resolve: (m) => m.projectRoles }),
    sso: t.exposeBoolean("sso", { description: "Signs in by single sign-on" }),
    disabled: t.exposeBoolean("disabled"),
    joinedAt: t.field({ type: "DateTime", resolve: (m) => m.joinedAt }),
  }),
});

const InvitationRef = builder
  .objectRef<{ id: string; email: string | null; role: string; url: string; expiresAt: Date; emailed: boolean }>("Invitation")
  .implement({
    fields: (t) => ({
      id: t.exposeID("id"),
      email: t.exposeString("email", { nullable: true }),
      role: t.exposeString("role"),
      url: t.exposeString("url", { description: "The single-use link, shown this once: pass it to the person invited" }),
      emailed: t.exposeBoolean("emailed", { description: "Sent by email (HONE_SMTP_URL is set)" }),
      expiresAt: t.field({ type: "DateTime", resolve: (i) => i.expiresAt }),
    }),
  });

const AuditEventRef = builder.objectRef<AuditEvent>("AuditEvent").implement({
  description: "One change, on any transport: who, what, which resource, when, from where",
  fields: (t) => ({
    id: t.exposeID("id"),
    action: t.string({ description: "The verb as its transport names it (datasets.create, createDataset, POST /api/v1/datasets)", resolve: (e) => e.verb }),
    actor: t.string({ description: "The person's email, the key, or the admin token", resolve: (e) => e.actorLabel ?? e.actorType }),
    actorType: t.exposeString("actorType"),
    actorId: t.exposeString("actorId", { nullable: true }),
    transport: t.exposeString("transport"),
    resourceType: t.exposeString("resourceType", { nullable: true }),
    resourceId: t.exposeString("resourceId", { nullable: true }),
    projectId: t.exposeString("projectId", { nullable: true }),
    outcome: t.exposeString("outcome", { description: "ok, or error: refused for want of a role or scope" }),
    summary: t.field({ type: "JSON", nullable: true, description: "What was sent, secrets removed", resolve: (e) => e.summary }),
    address: t.exposeString("address", { nullable: true }),
    userAgent: t.exposeString("userAgent", { nullable: true }),
    requestId: t.exposeString("requestId", { nullable: true }),
    createdAt: t.field({ type: "DateTime", resolve: (e) => e.at }),
  }),
});

const AuditFilterRef = builder.inputType("AuditFilterInput", {
  fields: (t) => ({
    actor: t.string({ required: false, description: "Part of the actor's email or key, or its id" }),
    action: t.string({ required: false, description: "Part of the verb" }),
    resourceId: t.string({ required: false }),
    projectId: t.string({ required: false }),
    transport: t.string({ required: false }),
    outcome: t.string({ required: false }),
    from: t.field({ type: "DateTime", required: false }),
    to: t.field({ type: "DateTime", required: false }),
  }),
});

builder.queryFields((t) => ({
  members: t.field({
    type: [MemberRef],
    description:
      "A page of the members of the organisation, owners first, then by when they joined: at most `first` (default and ceiling HONE_MAX_PAGE_SIZE), after `after` (a member's userId)",
    args: { first: t.arg.int({ required: false }), after: t.arg.string({ required: false }) },
    resolve: (_, a, c) => listMembers(teamCtx(c), { first: a.first, after: a.after }),
  }),
  auditLog: t.connection({
    type: AuditEventRef,
    description: "The audit log, newest first (owners and admins; a key with every scope reads its project's)",
    args: { filter: t.arg({ type: AuditFilterRef, required: false }) },
    resolve: async (_, args, c) => {
      const f = args.filter;
      const { action, ...rest } = f ?? {};
      const filter = f ? asInputOf(AuditFilter, { ...rest, verb: action ?? undefined }) : undefined;
      const after = args.after ? Buffer.from(args.after, "base64url").toString() : undefined;
      const page = await listAudit(teamCtx(c), { filter, first: args.first ?? 50, after });
      const cursor = (e: AuditEvent) => Buffer.from(e.id).toString("base64url");
      return {
        edges: page.events.map((node) => ({ cursor: cursor(node), node })),
        pageInfo: {
          hasNextPage: page.next !== null,
          hasPreviousPage: false,
          startCursor: page.events[0] ? cursor(page.events[0]) : null,
          endCursor: page.events.length ? cursor(page.events[page.events.length - 1]!) : null,
        },
      };
    },
  }),
}));

builder.mutationFields((t) => ({
  inviteMember: t.field({
    extensions: { role: "admin", organization: true },
    type: InvitationRef,
    description: "Invites someone by email with a role (owners and admins; only an owner invites an owner)",
    args: { email: t.arg.string(), role: t.arg.string() },
    resolve: (_, args, c) => inviteMember(teamCtx(c), asInputOf(InviteMemberInput, args)),
  }),
  updateMemberRole: t.field({
    extensions: { role: "owner", organization: true },
    type: MemberRef,
    description: "Changes a member's role (owners); with projectId, narrows it in that project",
    args: { userId: t.arg.id(), role: t.arg.string(), projectId: t.arg.id({ required: false }) },
    resolve: (_, args, c) =>
      updateMemberRole(
        teamCtx(c),
        asInputOf(UpdateMemberRoleInput, {
          userId: String(args.userId),
          role: args.role,
          projectId: args.projectId == null ? undefined : String(args.projectId),
        }),
      ),
  }),
  removeMember: t.field({
    extensions: { role: "owner", organization: true },
    type: "ID",
    description:
      "Removes a member from the organisation (owners); their sessions end, and so do the API keys they made for themselves, unless keys is project (they become their projects' service keys)",
    args: { userId: t.arg.id(), keys: t.arg.string({ required: false, description: "stop (default) or project" }) },
    resolve: async (_, args, c) => {
      const input = asInputOf(RemoveMemberInput, { userId: String(args.userId), keys: args.keys ?? undefined });
      return (await removeMember(teamCtx(c), input.userId, input.keys ?? "stop")).userId;
    },
  }),
}));
