import type { z } from "zod";

/**
 * A value from the wire handed to a verb that parses it with `schema` first (ARCHITECTURE rule 2),
 * typed as that schema's input instead of being checked twice. The one place a transport asserts a
 * type: GraphQL's generated input types and JSON scalars differ from the schema's input only in
 * nullability (null where zod says undefined) and in Pothos' own shapes, which the parse resolves.
 */
export function asInputOf<S extends z.ZodType>(_schema: S, value: unknown): z.input<S> {
  return value as z.input<S>;
}
