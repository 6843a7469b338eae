import SchemaBuilder from "@pothos/core";
import RelayPlugin from "@pothos/plugin-relay";
import ZodPlugin from "@pothos/plugin-zod";
import type { BaseCtx, Ctx } from "../../domain/context";
import { DomainError, validationError } from "../../core/errors";
import type { Principal } from "../auth";
import { toWireDate } from "../dates";

export type GqlContext = { principal: Principal };

export const builder = new SchemaBuilder<{
  Context: GqlContext;
  DefaultFieldNullability: false;
  DefaultInputFieldRequiredness: true;
  Scalars: {
    JSON: { Input: unknown; Output: unknown };
    DateTime: { Input: Date; Output: Date };
  };
}>({
  plugins: [RelayPlugin, ZodPlugin],
  defaultFieldNullability: false,
  defaultInputFieldRequiredness: true,
  relay: { clientMutationId: "omit", cursorType: "String" },
  zod: { validationError: (zodError) => validationError(zodError) },
});

builder.scalarType("JSON", {
  description: "Any JSON value",
  serialize: (v) => v,
  parseValue: (v) => v,
});

builder.scalarType("DateTime", {
  description: "An ISO 8601 timestamp",
  serialize: (v) => (v instanceof Date ? toWireDate(v) : String(v)),
  parseValue: (v) => {
    const d = new Date(String(v));
    if (Number.isNaN(d.getTime())) throw new DomainError("VALIDATION", "Invalid DateTime: expected ISO 8601");
    return d;
  },
});

builder.queryType({});
builder.mutationType({});

/** The project context of a resolver; the admin token alone names no project. */
export function projectCtx(context: GqlContext): Ctx {
  if (context.principal.kind === "project") return context.principal.ctx;
  throw new DomainError("FORBIDDEN", "This operation needs a project API key; the admin token can only create projects");
}

export function adminCtx(context: GqlContext): BaseCtx {
  if (context.principal.kind === "admin") return context.principal.ctx;
  throw new DomainError("FORBIDDEN", "This operation needs the admin token (HONE_ADMIN_TOKEN)");
}
