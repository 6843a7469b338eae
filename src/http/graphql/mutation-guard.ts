import { defaultFieldResolver, type GraphQLFieldResolver, type GraphQLSchema } from "graphql";
import { asOrganizationActor, requireRole, requireScope } from "../../domain/projects";
import type { Role } from "../../core/key-scope";
import { auditRequest, resultIdOf } from "../audit-request";
import type { GqlContext } from "./builder";

/** What a Mutation field declares of itself: the least role it needs; whether it is the organisation's work. */
export type MutationExtensions = { role?: Role; organization?: boolean };

const guarded = new WeakSet<GraphQLSchema>();

/**
 * Wraps every Mutation field's resolver: the key's scope and the role the field declares are
 * checked, then the change (or its refusal) is recorded in the audit log. It is done per field, as
 * the executor runs it, rather than by reading the operation's top-level selection: a mutation
 * written in an inline or named fragment, under an alias or behind @include is still a field that
 * runs, and one that @skip leaves out never runs. Query fields are left bare: reads are neither
 * audited nor checked field by field (their scope is checked once per operation).
 */
export function guardMutations(schema: GraphQLSchema): GraphQLSchema {
  if (guarded.has(schema)) return schema;
  guarded.add(schema);
  for (const field of Object.values(schema.getMutationType()?.getFields() ?? {})) {
    const resolve: GraphQLFieldResolver<unknown, GqlContext> = field.resolve ?? defaultFieldResolver;
    const ext = field.extensions as MutationExtensions;
    const name = field.name;
    field.resolve = async (parent, args, context: GqlContext & { request?: Request }, info) => {
      const principal = context.principal;
      const request = context.request;
      const audit = (outcome: { error: unknown } | { resultId: string | null }) =>
        request
          ? auditRequest(principal.ctx.deps, request, {
              actor: principal.ctx.actor,
              projectId: principal.kind === "project" ? principal.ctx.projectId : null,
              transport: "graphql",
              verb: name,
              input: args,
              ...outcome,
            })
          : undefined;
      try {
        // Organisation mutations (members, invitations) go by the organisation role alone; every
        // other one needs `write` in the project. A role the field needs above a member's (admin,
        // owner) is checked here too, before its input is validated, as on tRPC.
        // The role the field needs first, so a refusal names it (not the member's that every change needs).
        const what = name.replace(/([a-z0-9])([A-Z])/g, "$1 $2").toLowerCase();
        if (ext?.role) requireRole((ext.organization ? asOrganizationActor(principal.ctx) : principal.ctx).actor, ext.role, what);
        if (!ext?.organization) requireScope(principal.ctx.actor, "write", what);
        const result = await resolve(parent, args, context, info);
        await audit({ resultId: resultIdOf(result) });
        return result;
      } catch (err) {
        await audit({ error: err });
        throw err;
      }
    };
  }
  return schema;
}
