import { requireRole } from "../../domain/projects";
import type { Role } from "../../core/key-scope";
import { initTRPC, TRPCError } from "@trpc/server";
import type { TRPC_ERROR_CODE_KEY } from "@trpc/server/rpc";
import { z } from "zod";
import type { Actor, BaseCtx, Ctx } from "../../domain/context";
import { auditRequest, resultIdOf } from "../audit-request";
import type { Deps } from "../../domain/deps";
import { DomainError, type ErrorCode, type Issue, toDomainError, validationError } from "../../core/errors";
import type { ResolvedSession, SessionInfo } from "../../domain/sessions";
import { personActor } from "../session-cookie";
import { tooDeepError, valueTooDeep } from "../../core/json-depth";
import type { Principal } from "../auth";

type TrpcContext = {
  deps: Deps;
  request: Request;
  /** Headers added to the response (the session cookie). */
  resHeaders: Headers;
  requestId: string;
  principal: Principal | null;
  /** The admin, by bearer token or by an admin console session. */
  admin: BaseCtx | null;
  /** The console session the request came with (cookie), when it did. */
  session: ResolvedSession | null;
  /** The session cookie's token (also when it no longer signs in), to sign it out. */
  sessionToken: string | null;
  /** Why authentication failed, reported by the procedures that need it. */
  authError: DomainError | null;
};

function trpcCodeOf(code: ErrorCode): TRPC_ERROR_CODE_KEY {
  switch (code) {
    case "VALIDATION":
      return "BAD_REQUEST";
    case "UNAUTHORIZED":
      return "UNAUTHORIZED";
    case "FORBIDDEN":
      return "FORBIDDEN";
    case "NOT_FOUND":
      return "NOT_FOUND";
    case "CONFLICT":
      return "CONFLICT";
    case "PAYLOAD_TOO_LARGE":
      return "PAYLOAD_TOO_LARGE";
    case "REQUEST_TIMEOUT":
      return "TIMEOUT";
    case "RATE_LIMITED":
      return "TOO_MANY_REQUESTS";
    case "UPSTREAM_ERROR":
      return "BAD_GATEWAY";
    case "UPSTREAM_TIMEOUT":
      return "GATEWAY_TIMEOUT";
    case "UNAVAILABLE":
      return "SERVICE_UNAVAILABLE";
    case "INTERNAL":
      return "INTERNAL_SERVER_ERROR";
    default: {
      const unreachable: never = code;
      return unreachable;
    }
  }
}

/** tRPC's own failures (bad JSON, unknown procedure) in the domain's vocabulary. */
function domainCodeOfTrpc(code: TRPC_ERROR_CODE_KEY): ErrorCode {
  switch (code) {
    case "PARSE_ERROR":
    case "BAD_REQUEST":
    case "UNPROCESSABLE_CONTENT":
    case "UNSUPPORTED_MEDIA_TYPE":
    case "METHOD_NOT_SUPPORTED":
      return "VALIDATION";
    case "UNAUTHORIZED":
      return "UNAUTHORIZED";
    case "FORBIDDEN":
      return "FORBIDDEN";
    case "NOT_FOUND":
      return "NOT_FOUND";
    case "CONFLICT":
      return "CONFLICT";
    case "PAYLOAD_TOO_LARGE":
      return "PAYLOAD_TOO_LARGE";
    case "TIMEOUT":
      return "REQUEST_TIMEOUT";
    case "TOO_MANY_REQUESTS":
      return "RATE_LIMITED";
    case "SERVICE_UNAVAILABLE":
      return "UNAVAILABLE";
    default:
      return "INTERNAL";
  }
}

export function toTrpcError(err: DomainError): TRPCError {
  return new TRPCError({ code: trpcCodeOf(err.code), message: err.message, cause: err });
}

/** Whatever failed, as the DomainError the client is told about. */
export function domainErrorOf(error: TRPCError): DomainError {
  const cause = error.cause;
  if (cause instanceof DomainError) return cause;
  if (cause instanceof z.ZodError) return validationError(cause);
  const code = domainCodeOfTrpc(error.code);
  if (code === "INTERNAL") return new DomainError("INTERNAL", "Internal server error");
  return new DomainError(code, error.message);
}

/**
 * What a procedure declares besides its input: the least role it needs when that is more than its
 * kind says (a query: a viewer; a mutation: a member). The console is served the table these make
 * (`access.rules`), so it offers only what the server allows.
 */
export type ProcedureMeta = { role?: Role };

/** The least role a procedure needs: declared, else by its kind. */
export const leastRoleOf = (type: string, meta: ProcedureMeta | undefined): Role => meta?.role ?? (type === "mutation" ? "member" : "viewer");

/** Words a procedure's name may start with that say what it does. */
const ACTION =
  /^(accept|add|backfill|cancel|change|clear|count|create|delete|disable|enable|estimate|export|get|hand|import|invite|judge|list|move|play|read|recalculate|reject|relabel|remove|rename|reset|resplit|retry|revert|revoke|roll|run|save|set|start|stop|test|unlink|update|upload)\b/;

/**
 * A procedure in words, for refusals: "limits.delete" -> "delete limits"; "datasets.addEntries" ->
 * "add entries (datasets)"; a name that is no action: "see the audit log (team)" (a query),
 * "change the ... " (a mutation).
 */
export function procedureInWords(path: string, type = "query"): string {
  const cut = path.lastIndexOf(".");
  const noun = cut < 0 ? "" : path.slice(0, cut);
  const verb = cut < 0 ? path : path.slice(cut + 1);
  const spaced = (s: string) =>
    s
      .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
      .replace(/\./g, " ")
      .toLowerCase();
  let words = spaced(verb);
  if (!ACTION.test(words)) words = `${type === "mutation" ? "change" : "see"} the ${words}`;
  const nounWords = spaced(noun);
  if (!nounWords) return words;
  return words.includes(" ") ? `${words} (${nounWords})` : `${words} ${nounWords}`;
}

const t = initTRPC
  .context<TrpcContext>()
  .meta<ProcedureMeta>()
  .create({
    errorFormatter({ shape, error, ctx }) {
      const domain = domainErrorOf(error);
      const issues: Issue[] = domain.issues;
      return {
        message: domain.message,
        code: shape.code,
        data: {
          code: domain.code,
          httpStatus: shape.data.httpStatus,
          path: shape.data.path,
          issues,
          requestId: ctx?.requestId ?? null,
        },
      };
    },
  });

export const router = t.router;
export const middleware = t.middleware;

// Domain errors thrown by a verb reach tRPC as INTERNAL_SERVER_ERROR with the DomainError as
// cause; this puts the right code (and so the right HTTP status) on them, once for all procedures.
const mapDomainErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok && result.error.cause instanceof DomainError) throw toTrpcError(result.error.cause);
  // Driver errors that mean something to the client (a statement timeout, a database that cannot
  // be reached) get their code too.
  if (!result.ok && result.error.cause && !(result.error.cause instanceof z.ZodError)) {
    const domain = toDomainError(result.error.cause);
    if (domain.code !== "INTERNAL") throw toTrpcError(domain);
  }
  return result;
});

// Inputs are JSON the client sends: no deeper than HONE_MAX_JSON_DEPTH, checked before the input
// schema (or anything else) walks them.
const inputDepth = t.middleware(async ({ ctx, getRawInput, next }) => {
  const max = ctx.deps.config.maxJsonDepth;
  if (valueTooDeep(await getRawInput(), max)) throw toTrpcError(tooDeepError(max, "The input"));
  return next();
});

/** A person's session acting on their organisation: with their organisation role (not a project's narrowed one). */
function organizationActor(ctx: TrpcContext): { actor: Actor; projectId: string | null } | null {
  const actor = ctx.session ? personActor(ctx.session) : null;
  return actor ? { actor, projectId: ctx.session!.projectId } : null;
}

/** Who a tRPC call acts as: its project principal (a person with their role in the project), else a person's session, else the admin. */
function actorOf(ctx: TrpcContext): { actor: Actor | null; projectId: string | null } {
  if (ctx.principal?.kind === "project") return { actor: ctx.principal.ctx.actor, projectId: ctx.principal.ctx.projectId };
  return organizationActor(ctx) ?? { actor: ctx.admin?.actor ?? null, projectId: null };
}

/** The person a sign-in (or an accepted invitation) answered with. */
function signedInPerson(data: unknown): Actor | null {
  const d = (data ?? {}) as Partial<SessionInfo>;
  return personActor({ user: d.user ?? null, organization: d.organization ?? null, orgRole: d.orgRole ?? null });
}

// Every mutation is recorded in the audit log once it has succeeded (or been refused for want of
// a role or scope), with who, from where, and what was sent (secrets removed). A read is recorded
// only when it is refused to someone signed in: someone tried to see what they may not.
const audit = t.middleware(async ({ ctx, type, path, getRawInput, next }) => {
  const result = await next();
  if (type !== "mutation" && (result.ok || domainErrorOf(result.error).code !== "FORBIDDEN" || !actorOf(ctx).actor)) return result;
  const who = actorOf(ctx);
  const { projectId } = who;
  // A sign-in (or an accepted invitation) acts as the person it signed in.
  const actor = who.actor ?? (result.ok ? signedInPerson(result.data) : null);
  const input = await getRawInput().catch(() => null);
  await auditRequest(ctx.deps, ctx.request, {
    actor,
    projectId,
    transport: "trpc",
    verb: path,
    input,
    ...(result.ok ? { resultId: resultIdOf(result.data) } : { error: domainErrorOf(result.error) }),
  });
  return result;
});

const base = t.procedure.use(mapDomainErrors).use(inputDepth).use(audit);

/** Needs no authentication (signing in). */
export const publicProcedure = base;

/** Needs a live console session (the cookie). */
export const sessionProcedure = base.use(({ ctx, next }) => {
  if (ctx.session && ctx.sessionToken) return next({ ctx: { ...ctx, session: ctx.session, sessionToken: ctx.sessionToken } });
  throw toTrpcError(ctx.authError ?? new DomainError("UNAUTHORIZED", "Not signed in to the console"));
});

export const projectProcedure = base.use(async ({ ctx, next, type, path, meta }) => {
  if (ctx.principal?.kind === "project") {
    // The least role the procedure needs (the table the console is served), before its input: a
    // person by their role, a key by its scopes (queries need `read`, mutations `write`, admin
    // work every scope).
    let release: () => void;
    try {
      requireRole(ctx.principal.ctx.actor, leastRoleOf(type, meta), procedureInWords(path, type));
      // A project's calls run a few at a time (HONE_PROJECT_CONCURRENCY); its burst waits in its own queue or gets 429.
      release = await ctx.deps.fairShare.acquire(ctx.principal.ctx.projectId, "trpc");
    } catch (err) {
      throw toTrpcError(toDomainError(err));
    }
    try {
      return await next({ ctx: { ...ctx, project: ctx.principal.ctx satisfies Ctx } });
    } finally {
      release();
    }
  }
  if (ctx.principal?.kind === "admin") {
    throw toTrpcError(new DomainError("FORBIDDEN", "This procedure needs a project API key; the admin token can only create projects"));
  }
  if (ctx.session?.admin || ctx.session?.user) throw toTrpcError(new DomainError("NOT_FOUND", "No project is selected: create one or switch to one"));
  throw toTrpcError(ctx.authError ?? new DomainError("UNAUTHORIZED", "Missing API key"));
});

export const adminProcedure = base.use(({ ctx, next }) => {
  if (ctx.admin) return next({ ctx: { ...ctx, admin: ctx.admin } });
  if (ctx.authError) throw toTrpcError(ctx.authError);
  if (!ctx.deps.config.adminToken) {
    throw toTrpcError(new DomainError("FORBIDDEN", "The admin API is off: set HONE_ADMIN_TOKEN to enable it"));
  }
  throw toTrpcError(new DomainError("UNAUTHORIZED", "This procedure needs the admin token (HONE_ADMIN_TOKEN)"));
});

/**
 * Organisation work (members, invitations, the audit log): a person's session (with or without a
 * project selected), or a key or admin token acting on a project of an organisation.
 */
export const orgProcedure = base.use(({ ctx, next }) => {
  // Members, invitations and the audit log are the organisation's: a person acts with their
  // organisation role there, whatever a project narrows it to.
  const { actor, projectId } = organizationActor(ctx) ?? actorOf(ctx);
  if (!actor) throw toTrpcError(ctx.authError ?? new DomainError("UNAUTHORIZED", "Not signed in"));
  const team: BaseCtx & { projectId?: string } = { deps: ctx.deps, actor, requestId: ctx.requestId, ...(projectId ? { projectId } : {}) };
  if (ctx.principal?.ctx.answer) team.answer = ctx.principal.ctx.answer;
  return next({ ctx: { ...ctx, team } });
});

/** Managing keys, provider keys, custom providers, routes, limits, webhooks and prices: admins (a key with every scope), checked before the input. */
export const manageProcedure = projectProcedure.meta({ role: "admin" }).use(({ ctx, next, path, type }) => {
  try {
    requireRole(ctx.project.actor, "admin", procedureInWords(path, type));
  } catch (err) {
    throw toTrpcError(toDomainError(err));
  }
  return next();
});

/** Organisation work at a least role, checked before the input is. */
export const teamProcedure = (least: Role) =>
  orgProcedure.meta({ role: least }).use(({ ctx, next, path, type }) => {
    try {
      requireRole(ctx.team.actor, least, procedureInWords(path, type));
    } catch (err) {
      throw toTrpcError(toDomainError(err));
    }
    return next();
  });
