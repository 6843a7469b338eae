import { endSession, type SessionInfo, SignInInput, startSession, SwitchProjectInput, switchSessionProject } from "../../../domain/sessions";
import { clientAddress } from "../../client-address";
import { toWireDate } from "../../dates";
import { clearedSessionCookie, requireConsoleHeader, sessionCookie } from "../../session-cookie";
import { publicProcedure, router, sessionProcedure } from "../init";

const sessionOut = (s: SessionInfo) => ({
  admin: s.admin,
  project: s.project,
  key: s.key,
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
  /** Admin sessions only: act on another project from now on. */
  switchProject: sessionProcedure.input(SwitchProjectInput).mutation(async ({ ctx, input }) => {
    const project = await switchSessionProject(ctx.deps, ctx.session, input);
    return sessionOut({ ...ctx.session, project });
  }),
});
