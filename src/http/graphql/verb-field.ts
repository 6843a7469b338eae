import type { AnyVerb } from "../../domain/verb";
import { builder, projectCtx } from "./builder";
import { argsOf, inputFromArgs } from "./zod-args";

// One line exposes a domain verb (src/domain/verb.ts) on GraphQL: a Query or Mutation field named
// as the verb, its arguments derived from the verb's input schema, its role declared to the
// mutation guard (which checks it before the input and audits the mutation), its description the
// verb's. `type` is the field's output (a ref, a scalar name, or a list of one); `out` maps the
// verb's answer to it when they differ.

type FieldOptions<V extends AnyVerb> = {
  // Pothos' output type parameter; the resolver's value is checked against it where the ref is made.
  type: any;
  nullable?: boolean;
  out?: (answer: Awaited<ReturnType<V>>) => unknown;
};

export function verbField<V extends AnyVerb>(v: V, options: FieldOptions<V>): void {
  const style = v.graphqlArgs ?? "flat";
  const field = {
    type: options.type,
    nullable: options.nullable ?? false,
    description: v.description,
    // Roles above a member's are checked by name (a viewer's key lacks `write`, and a member's has it).
    ...(v.kind === "mutation" && (v.role === "admin" || v.role === "owner") ? { extensions: { role: v.role } } : {}),
  };
  const resolve = async (_: unknown, args: Record<string, unknown>, c: Parameters<typeof projectCtx>[0]) => {
    const answer = await v(projectCtx(c), inputFromArgs(args, style));
    return options.out ? options.out(answer) : answer;
  };
  // the field builder's generic types are fixed by literal type names; a derived field gives them at run time.
  const make = (t: any) => t.field({ ...field, args: argsOf(t, v.input, style), resolve });
  if (v.kind === "query") builder.queryField(v.name, make);
  else builder.mutationField(v.name, make);
}
