import { z } from "zod";
import type { Role } from "../core/key-scope";
import type { Ctx } from "./context";

// A domain verb declared once (docs/architecture.md "Adding a verb"): its name, what it does, who
// may call it and its one input schema stand beside the code that runs it. The transports read the
// declaration: tRPC validates with the schema (src/http/trpc/verb-procedure.ts), GraphQL derives
// its arguments from it (src/http/graphql/verb-field.ts), both check the role before the input and
// audit a mutation, each by one line. The verb is still a plain function: `setLimit(ctx, input)`.

/** The input of a verb that takes none: nothing, or `{}`. */
export const NoInput = z.strictObject({}).optional();

export type VerbSpec<S extends z.ZodType, O> = {
  /** The GraphQL field; tRPC names the procedure where its router lists it. */
  name: string;
  /** What it does, in a sentence: the GraphQL description. */
  description: string;
  /** A query reads; a mutation changes something and is audited on every transport (refusals of a query too). */
  kind: "query" | "mutation";
  /**
   * The least role in the project that may call it. A viewer's key reads and a member's writes
   * (its scopes say so on every transport); `admin` and `owner` are checked by name, before the input.
   */
  role: Role;
  /** The input, written once: the verb parses it, tRPC validates with it, GraphQL's arguments are derived from it. */
  input: S;
  /** GraphQL: the fields as arguments (`limitSpend(limitId: ID, first: Int)`), or one `input` argument of the schema's `meta({ id })` type. */
  graphqlArgs?: "flat" | "input";
  run: (ctx: Ctx, input: z.input<S>) => Promise<O>;
};

/** The input argument: left out where the schema takes undefined (a verb with no input, or an optional one). */
type InputArg<S extends z.ZodType> = undefined extends z.input<S> ? [input?: z.input<S>] : [input: z.input<S>];

export type Verb<S extends z.ZodType, O> = ((ctx: Ctx, ...input: InputArg<S>) => Promise<O>) & Readonly<Omit<VerbSpec<S, O>, "run">>;

// the one place a verb of any input and output is named; each use is typed by its own declaration.
export type AnyVerb = Verb<any, any>;

/** Declares a verb: the function that runs it, carrying its declaration. */
export function verb<S extends z.ZodType, O>(spec: VerbSpec<S, O>): Verb<S, O> {
  const { run, name, ...declaration } = spec;
  const call = (ctx: Ctx, ...input: InputArg<S>) => run(ctx, input[0] as z.input<S>);
  // A function's own `name` cannot be assigned, only defined.
  Object.defineProperty(call, "name", { value: name });
  return Object.assign(call, declaration) as unknown as Verb<S, O>;
}
