import { z } from "zod";
import { builder } from "./builder";

// GraphQL arguments derived from a verb's zod input (src/domain/verb.ts), so the schema is written
// once. The house's mapping, the one the hand-written types follow:
//   string → String, and ID for a key named `id` or ending in `Id` (or marked `meta({ graphql: "ID" })`); an integer → Int, another
//   number → Float; boolean → Boolean; date → DateTime; enum → String (the values are in the
//   description and the verb's parse says which are allowed) unless `meta({ graphqlEnum: "Name" })`
//   names a GraphQL enum; array → a list of non-null items; object → an input type named by the
//   schema's `meta({ id: "Name" })`; anything else (records, unions, unknown) → JSON.
//   optional, nullable, nullish and default → not required. A field's `.describe()` (or
//   `meta({ description })`) is its description.
// A field left out arrives as undefined; an explicit null stays null (the verb's parse decides).

type Def = { type: string; innerType?: z.ZodType; element?: z.ZodType; shape?: Record<string, z.ZodType>; in?: z.ZodType; entries?: Record<string, string> };
const defOf = (s: z.ZodType): Def => (s as unknown as { _zod: { def: Def } })._zod.def;
type Meta = { id?: string; description?: string; graphqlEnum?: string; graphql?: "ID" };
const metaOf = (s: z.ZodType): Meta => (z.globalRegistry.get(s) as Meta | undefined) ?? {};

/** The schema under its wrappers (optional, nullable, default, pipes and refinements), and whether a value may be left out. */
function unwrap(s: z.ZodType): { core: z.ZodType; required: boolean; description: string | undefined; id: boolean } {
  let required = true;
  let description = metaOf(s).description;
  let id = metaOf(s).graphql === "ID";
  let cur = s;
  for (;;) {
    const d = defOf(cur);
    if (d.type === "optional" || d.type === "nullable" || d.type === "default" || d.type === "prefault") {
      required = false;
      cur = d.innerType!;
    } else if (d.type === "pipe") cur = d.in!;
    else if (d.type === "readonly" || d.type === "catch") cur = d.innerType!;
    else break;
    description ??= metaOf(cur).description;
    id ||= metaOf(cur).graphql === "ID";
  }
  return { core: cur, required, description, id };
}

/** Whether a number schema takes integers only (`.int()`, `z.int()`): zod 4 keeps it as the schema's format. */
const isInteger = (s: z.ZodType) => {
  const format = (s as unknown as { format?: string | null }).format;
  return format === "safeint" || format === "int32" || format === "uint32";
};

const inputTypes = new Map<string, unknown>();
const enumTypes = new Map<string, unknown>();

/** The GraphQL type of one field, as Pothos takes it (a name, a ref, or a one-item list of them). */
// Pothos types an argument by its literal type name; a derived one is only known when the schema is read.
function typeOf(key: string, core: z.ZodType): any {
  const d = defOf(core);
  switch (d.type) {
    case "string":
      return key === "id" || key.endsWith("Id") ? "ID" : "String";
    case "number":
      return isInteger(core) ? "Int" : "Float";
    case "int":
      return "Int";
    case "boolean":
      return "Boolean";
    case "date":
      return "DateTime";
    case "enum": {
      const name = metaOf(core).graphqlEnum;
      if (!name) return "String";
      if (!enumTypes.has(name)) enumTypes.set(name, builder.enumType(name, { values: Object.values(d.entries ?? {}) as [string, ...string[]] }));
      return enumTypes.get(name);
    }
    case "array": {
      const item = unwrap(d.element!);
      return [typeOf(key.endsWith("Ids") ? "id" : key, item.core)];
    }
    case "object":
      return inputTypeOf(core);
    default:
      return "JSON";
  }
}

/** The input type an object schema names with `meta({ id })`, made once. */
function inputTypeOf(object: z.ZodType) {
  const name = metaOf(object).id;
  if (!name) throw new Error("A nested object of a verb's input needs meta({ id: 'TypeName' }) to be a GraphQL input type");
  const made = inputTypes.get(name);
  if (made) return made;
  const shape = defOf(object).shape!;
  const ref = builder.inputType(name, {
    ...(metaOf(object).description ? { description: metaOf(object).description } : {}),
    fields: (t) =>
      Object.fromEntries(
        Object.entries(shape).map(([key, field]) => {
          const { core, required, description, id } = unwrap(field);
          return [key, t.field({ type: id ? "ID" : typeOf(key, core), required, ...(description ? { description } : {}) })];
        }),
      ),
  });
  inputTypes.set(name, ref);
  return ref;
}

/** The fields of an object input (under `.optional()` and refinements), or none for a verb that takes no input. */
export function shapeOf(input: z.ZodType): Record<string, z.ZodType> {
  const { core } = unwrap(input);
  const d = defOf(core);
  if (d.type === "object") return d.shape!;
  if (d.type === "undefined" || d.type === "void") return {};
  throw new Error("A verb's input is an object schema (or z.undefined() for none)");
}

// see typeOf.
type ArgBuilder = { arg: (options: any) => any };

/** The arguments of a field: each key of the object schema (`flat`), or one `input` argument of its input type. */
export function argsOf(t: ArgBuilder, input: z.ZodType, style: "flat" | "input") {
  const { core, required } = unwrap(input);
  if (style === "input") return { input: t.arg({ type: inputTypeOf(core), required }) };
  return Object.fromEntries(
    Object.entries(shapeOf(input)).map(([key, field]) => {
      const f = unwrap(field);
      return [key, t.arg({ type: f.id ? "ID" : typeOf(key, f.core), required: f.required, ...(f.description ? { description: f.description } : {}) })];
    }),
  );
}

/** GraphQL hands IDs over as strings already; left-out arguments are absent. The value the verb parses. */
export function inputFromArgs(args: Record<string, unknown>, style: "flat" | "input"): unknown {
  const value = style === "input" ? args.input : args;
  return value === null ? undefined : value;
}
