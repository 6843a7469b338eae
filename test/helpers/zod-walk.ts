import type { z } from "zod";

type Def = { type: string; [k: string]: unknown };
const defOf = (s: unknown): Def | null => ((s as { _zod?: { def?: Def } })?._zod?.def as Def | undefined) ?? null;

/**
 * The paths of every object schema inside `schema` that drops keys it does not know (zod's default
 * `z.object`): an input should name them in a 400 (`z.strictObject`), or take them on purpose
 * (`z.looseObject`, a record).
 */
export function strippingObjects(schema: z.ZodType, path = "$", seen = new Set<unknown>()): string[] {
  const def = defOf(schema);
  if (!def || seen.has(schema)) return [];
  seen.add(schema);
  const out: string[] = [];
  const walk = (s: unknown, p: string) => out.push(...strippingObjects(s as z.ZodType, p, seen));
  switch (def.type) {
    case "object": {
      if (def.catchall === undefined) out.push(path);
      for (const [k, v] of Object.entries(def.shape as Record<string, unknown>)) walk(v, `${path}.${k}`);
      const catchall = defOf(def.catchall);
      if (catchall && catchall.type !== "never" && catchall.type !== "unknown") walk(def.catchall, `${path}.*`);
      break;
    }
    case "optional":
    case "nullable":
    case "default":
    case "prefault":
    case "nonoptional":
    case "readonly":
    case "catch":
      walk(def.innerType, path);
      break;
    case "array":
      walk(def.element, `${path}[]`);
      break;
    case "union":
      for (const [i, o] of (def.options as unknown[]).entries()) walk(o, `${path}|${i}`);
      break;
    case "intersection":
      walk(def.left, path);
      walk(def.right, path);
      break;
    case "pipe":
      walk(def.in, path);
      break;
    case "lazy":
      walk((def.getter as () => unknown)(), path);
      break;
    case "record":
      walk(def.valueType, `${path}.*`);
      break;
    case "tuple":
      for (const [i, o] of (def.items as unknown[]).entries()) walk(o, `${path}[${i}]`);
      break;
  }
  return out;
}
