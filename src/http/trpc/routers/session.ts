import { z } from "zod";
import {
  endSession,
  type SessionInfo,
  SignInInput,
  startSession,
  SwitchProjectInput,
  switchSessionOrganization,
  switchSessionProject,
} from "../../../domain/sessions";
import {
  AcceptInvitationInput,
  acceptInvitation,
  anyUser,
  ChangePasswordInput,
  changePassword,
  IdInput,
  listMyOrganizations,
  listMySessions,
  PasswordSignInInput,
  previewInvitation,
  revokeMySession,
  signInWithPassword,
  SwitchOrganizationInput,
} from "../../../domain/teams";
import { clientOf } from "../../audit-request";
import { clientAddress } from "../../client-address";
import { toWireDate } from "../../dates";
import { clearedSessionCookie, requireConsoleHeader, sessionCookie } from "../../session-cookie";
import { publicProcedure, router, sessionProcedure } from "../init";

const sessionOut = (s: SessionInfo) => ({
  admin: s.admin,
  project: s.project,
  key: s.key,
  user: s.user,
  organization: s.organization,
  orgRole: s.orgRole,
  role: s.role,
  createdAt: toWireDate(s.createdAt),
  idleExpiresAt: toWireDate(s.idleExpiresAt),
  expiresAt: toWireDate(s.expiresAt),
});

/** The console's sign-in: an API key (or the admin token) for an HttpOnly session cookie. */
export const sessionRouter = router({
  signIn: publicProcedure.input(SignInInput).mutation(async ({ ctx, input }) => {
    requireConsoleHeader(ctx.request);
    const from = () => clientAddress(ctx.request, ctx.deps.config.trustedProxies);
    const started = await startSession({ deps: ctx.deps, actor: { type: "admin" }, requestId: ctx.requestId }, input, from);
    ctx.resHeaders.append("set-cookie", sessionCookie(ctx.request, started.token, ctx.deps.config.sessionMaxMs));
    return sessionOut(started.session);
  }),
  /** The signed-in session; null when no session cookie came; UNAUTHORIZED when it has ended. */
  me: publicProcedure.query(({ ctx }) => {
    if (ctx.session) return sessionOut(ctx.session);
    // A cookie that came but no longer signs in: the console says the session has ended.
    if (ctx.sessionToken && ctx.authError) throw ctx.authError;
    return null;
  }),
  signOut: sessionProcedure.mutation(async ({ ctx }) => {
    await endSession(ctx.deps, ctx.sessionToken);
    ctx.resHeaders.append("set-cookie", clearedSessionCookie(ctx.request));
    return { signedOut: true };
  }),
  /** Email and password: a person's session. */
  signInWithPassword: publicProcedure.input(PasswordSignInInput).mutation(async ({ ctx, input }) => {
    requireConsoleHeader(ctx.request);
    const started = await signInWithPassword(ctx.deps, input, clientOf(ctx.deps, ctx.request));
    ctx.resHeaders.append("set-cookie", sessionCookie(ctx.request, started.token, ctx.deps.config.sessionMaxMs));
    return sessionOut(started.session);
  }),
  /** How this Hone signs people in: whether the first owner is still to be made, key sign-in, single sign-on. */
  options: publicProcedure.query(async ({ ctx }) => ({
    keySignIn: ctx.deps.config.consoleKeySignIn,
    sso: ctx.deps.config.oidc !== null,
    needsFirstOwner: !(await anyUser(ctx.deps)),
  })),
  /** What an invitation link offers (the accept page shows it before asking for a password). */
  invitation: publicProcedure.input(z.strictObject({ token: z.string().max(200) })).query(async ({ ctx, input }) => {
    const p = await previewInvitation(ctx.deps, input.token);
    return { ...p, expiresAt: toWireDate(p.expiresAt) };
  }),
  /** Accepts an invitation (or the first-owner link) and signs the person in. */
  acceptInvitation: publicProcedure.input(AcceptInvitationInput).mutation(async ({ ctx, input }) => {
    requireConsoleHeader(ctx.request);
    const started = await acceptInvitation(ctx.deps, input, clientOf(ctx.deps, ctx.request));
    ctx.resHeaders.append("set-cookie", sessionCookie(ctx.request, started.token, ctx.deps.config.sessionMaxMs));
    return sessionOut(started.session);
  }),
  /** A person's organisations, to switch between. */
  organizations: sessionProcedure.query(async ({ ctx }) => (ctx.session.user ? listMyOrganizations(ctx.deps, ctx.session.user.id) : [])),
  switchOrganization: sessionProcedure.input(SwitchOrganizationInput).mutation(async ({ ctx, input }) => {
    await switchSessionOrganization(ctx.deps, ctx.session, input.organizationId);
    return { organizationId: input.organizationId };
  }),
  /** A person's own live sessions. */
  list: sessionProcedure.query(async ({ ctx }) =>
    (await listMySessions({ deps: ctx.deps, actor: { type: "system", job: "sessions" }, requestId: ctx.requestId }, ctx.session)).map((s) => ({
      ...s,
      createdAt: toWireDate(s.createdAt),
      lastSeenAt: toWireDate(s.lastSeenAt),
      expiresAt: toWireDate(s.expiresAt),
    })),
  ),
  revoke: sessionProcedure
    .input(IdInput)
    .mutation(({ ctx, input }) =>
      revokeMySession({ deps: ctx.deps, actor: { type: "system", job: "sessions" }, requestId: ctx.requestId }, ctx.session, input.id),
    ),
  changePassword: sessionProcedure
    .input(ChangePasswordInput)
    .mutation(({ ctx, input }) => changePassword(ctx.deps, ctx.session, input, clientOf(ctx.deps, ctx.request))),
  /** Admin sessions only: act on another project from now on. */
  switchProject: sessionProcedure.input(SwitchProjectInput).mutation(async ({ ctx, input }) => {
    const project = await switchSessionProject(ctx.deps, ctx.session, input);
    return sessionOut({ ...ctx.session, project });
  }),
});
