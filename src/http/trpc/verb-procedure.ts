import type { z } from "zod";
import { DomainError, toDomainError } from "../../core/errors";
import { requireRole } from "../../domain/projects";
import type { Ctx } from "../../domain/context";
import type { AnyVerb, Verb } from "../../domain/verb";
import { procedureInWords, projectProcedure, toTrpcError } from "./init";

// One line exposes a domain verb (src/domain/verb.ts) on tRPC: `set: verbMutation(setLimit, limitOut)`
// in its router
// (`verbQuery` for a query). The input is the verb's schema; the key's scope is checked as for every project
// procedure (queries need `read`, mutations `write`), a role above a member's by name before the
// input; a mutation is audited by the middleware every procedure has. `out` maps the answer to the
// wire (dates as ISO strings) where it differs.

/** The verb's role, when it is one its scopes do not already say (admin, owner), checked before the input. */
const roleCheck = (role: Verb<z.ZodType, unknown>["role"]) =>
  projectProcedure.meta({ role }).use(({ ctx, next, path, type }) => {
    if (role === "admin" || role === "owner") {
      try {
        requireRole(ctx.project.actor, role, procedureInWords(path, type));
      } catch (err) {
        throw toTrpcError(err instanceof DomainError ? err : toDomainError(err));
      }
    }
    return next();
  });

/** The answer of a verb. */
type AnswerOf<V extends AnyVerb> = Awaited<ReturnType<V>>;

function parts<V extends AnyVerb, W>(v: V, kind: "query" | "mutation", out?: (answer: AnswerOf<V>) => W) {
  if (v.kind !== kind) throw new Error(`${v.name} is a ${v.kind}: expose it with verb${v.kind === "query" ? "Query" : "Mutation"}`);
  const procedure = roleCheck(v.role).input(v.input as V["input"]);
  const run = async ({ ctx, input }: { ctx: { project: Ctx }; input: unknown }): Promise<W> => {
    // The verb parses its input again (ARCHITECTURE rule 2): what tRPC validated is its schema's input.
    const answer: AnswerOf<V> = await (v as (ctx: Ctx, input: unknown) => Promise<AnswerOf<V>>)(ctx.project, input);
    return out ? out(answer) : (answer as unknown as W);
  };
  return { procedure, run };
}

/** A query verb as a tRPC query. */
export function verbQuery<V extends AnyVerb, W = AnswerOf<V>>(v: V, out?: (answer: AnswerOf<V>) => W) {
  const { procedure, run } = parts(v, "query", out);
  return procedure.query(run);
}

/** A mutation verb as a tRPC mutation (audited by every procedure's middleware). */
export function verbMutation<V extends AnyVerb, W = AnswerOf<V>>(v: V, out?: (answer: AnswerOf<V>) => W) {
  const { procedure, run } = parts(v, "mutation", out);
  return procedure.mutation(run);
}
