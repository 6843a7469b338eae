import type { Actor, KeyGrant } from "../context";
import type { KeyScope, Role } from "../../core/key-scope";
import { DomainError } from "../../core/errors";

// What a scoped key may do. `gateway`: model calls and what the SDKs send beside them (reports,
// cache checks, log tags); `read`: the management APIs' reads (REST GETs, GraphQL queries, tRPC
// queries, the console); `write`: their changes. Keys, limits and webhooks are managed only with a
// key that holds every scope (or the admin token, or the CLI).

export const ALL_SCOPES: readonly KeyScope[] = ["gateway", "read", "write"];

const grantOf = (actor: Actor): KeyGrant | null => (actor.type === "apiKey" ? (actor.grant ?? null) : null);

// A person's role in a project, against what each scope stands for: reading needs a viewer, changing
// data (and the playground's model calls) a member, managing keys and settings an admin.
const RANK: Record<Role, number> = { viewer: 0, member: 1, admin: 2, owner: 3 };
// A person never acts as a trainer from the console; the trainer API is for trainer tokens (and admins).
const SCOPE_ROLE: Record<KeyScope, Role> = { read: "viewer", write: "member", gateway: "member", trainer: "admin" };

/** Who may act at least at a role, in words. */
const WHO_MAY: Record<Role, string> = { viewer: "members of this project", member: "members and above", admin: "admins and owners", owner: "owners" };

/** Whether a role is at least another. */
export const roleAtLeast = (role: Role, least: Role): boolean => RANK[role] >= RANK[least];

/**
 * FORBIDDEN unless the actor may act at this level: a person by their role; an API key by its
 * scopes (viewer: `read`; member: `write`; admin: every scope; owner: never, it is a person's); the
 * admin token, the CLI and Hone's own jobs always.
 */
export function requireRole(actor: Actor, least: Role, what: string): void {
  if (actor.type === "user") {
    if (roleAtLeast(actor.role, least)) return;
    throw new DomainError("FORBIDDEN", `Only ${WHO_MAY[least]} can ${what}; your role here is ${actor.role}`, {
      role: actor.role,
      neededRole: least,
    });
  }
  if (actor.type !== "apiKey") return;
  if (least === "owner")
    throw new DomainError("FORBIDDEN", `${what} needs an organisation owner signed in as themselves, not an API key`, { neededRole: least });
  requireMakerRole(actor, least, what);
  if (least === "admin") requireFullKey(actor, what);
  else requireScope(actor, least === "member" ? "write" : "read", what);
}

/** A person's key acts at most with its maker's role now: FORBIDDEN past it, whatever its scopes. */
function requireMakerRole(actor: Actor, least: Role, what: string): void {
  const maxRole = grantOf(actor)?.maxRole;
  if (!maxRole || roleAtLeast(maxRole, least)) return;
  throw new DomainError("FORBIDDEN", `Only ${WHO_MAY[least]} can ${what}; this API key acts for a person whose role here is now ${maxRole}`, {
    role: maxRole,
    neededRole: least,
  });
}

/** FORBIDDEN, naming the scope, when the acting key lacks it (or the acting person's role is below it). */
export function requireScope(actor: Actor, scope: KeyScope, what: string): void {
  if (actor.type === "user") {
    requireRole(actor, SCOPE_ROLE[scope], what);
    return;
  }
  const grant = grantOf(actor);
  if (grant?.maxRole) requireMakerRole(actor, SCOPE_ROLE[scope], what);
  if (!grant || grant.scopes.includes(scope)) return;
  throw new DomainError("FORBIDDEN", `This API key lacks the \`${scope}\` scope needed to ${what} (it has: ${grant.scopes.join(", ") || "none"})`, {
    missingScope: scope,
  });
}

/** FORBIDDEN unless the acting key holds every scope: managing keys, limits and webhooks. */
export function requireFullKey(actor: Actor, what: string): void {
  if (actor.type === "user") {
    requireRole(actor, "admin", what);
    return;
  }
  requireMakerRole(actor, "admin", what);
  for (const s of ALL_SCOPES) requireScope(actor, s, what);
}

/** FORBIDDEN when the acting key may not call this model (its allowed-model globs). */
export function requireModelAllowed(actor: Actor, model: string, canonical: string): void {
  const grant = grantOf(actor);
  const globs = grant?.allowedModels;
  if (!globs) return;
  if (globs.some((g) => globMatch(g, model) || globMatch(g, canonical))) return;
  throw new DomainError(
    "FORBIDDEN",
    `This API key may not call the model ${model}: it may call ${grant.allowedModels?.length ? grant.allowedModels.join(", ") : "no model"}`,
    { missingScope: "model", issues: [{ message: `model ${model} is not allowed for this key`, path: ["model"] }] },
  );
}

/**
 * A glob (`*` any characters, `?` one) against a string, in time linear in practice and at most
 * glob × string steps (a tenant chooses the globs: no regular expression, so no backtracking blow-up).
 */
export function globMatch(glob: string, s: string): boolean {
  let g = 0;
  let i = 0;
  let star = -1;
  let mark = 0;
  while (i < s.length) {
    if (g < glob.length && (glob[g] === "?" || glob[g] === s[i])) {
      g++;
      i++;
    } else if (g < glob.length && glob[g] === "*") {
      star = g++;
      mark = i;
    } else if (star >= 0) {
      g = star + 1;
      i = ++mark;
    } else return false;
  }
  while (g < glob.length && glob[g] === "*") g++;
  return g === glob.length;
}

/** The actor as the organisation sees it: a person with their organisation role (a project may narrow it; the organisation's own work does not). */
export function asOrganizationActor<C extends { actor: Actor }>(ctx: C): C {
  return ctx.actor.type === "user" ? { ...ctx, actor: { ...ctx.actor, role: ctx.actor.orgRole } } : ctx;
}
