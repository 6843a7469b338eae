import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { getNamedType, isInputObjectType, isNonNullType, type GraphQLArgument, type GraphQLInputField } from "graphql";
import { z } from "zod";
import { deleteLimit, limitSpend, listLimits, setLimit } from "../../src/domain/limits";
import type { Ctx } from "../../src/domain/context";
import { verb } from "../../src/domain/verb";
import { schema } from "../../src/http/graphql/schema";
import { verbMutation, verbQuery } from "../../src/http/trpc/verb-procedure";
import { limitsProcedures } from "../../src/http/verbs/limits";
import { createTestApp, type TestApp } from "../helpers/app";
import { gql } from "../helpers/gql";
import { trpcClient, trpcFailure } from "../helpers/trpc";

// A verb declared once (src/domain/verb.ts) is what both transports expose: GraphQL's arguments
// are derived from its zod input by the house's mapping, its description and role come from the
// declaration, and tRPC validates with the same schema and checks the same role before the input.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const typeName = (a: GraphQLArgument | GraphQLInputField) => `${a.type}`;

describe("GraphQL arguments derived from a verb's zod input", () => {
  test("flat arguments: an integer is Int, a key ending in Id is ID, nothing optional is required", () => {
    const field = schema.getQueryType()!.getFields().limitSpend!;
    expect(Object.fromEntries(field.args.map((a) => [a.name, typeName(a)]))).toEqual({ limitId: "ID", first: "Int" });
    expect(field.description).toBe(limitSpend.description);
  });

  test("an input object named by meta({ id }): enums as String, descriptions from .describe(), required where zod requires", () => {
    const field = schema.getMutationType()!.getFields().setLimit!;
    expect(field.args.map((a) => [a.name, typeName(a)])).toEqual([["input", "SetLimitInput!"]]);
    const input = getNamedType(field.args[0]!.type);
    if (!isInputObjectType(input)) throw new Error("SetLimitInput is not an input type");
    const fields = input.getFields();
    expect(typeName(fields.scope!)).toBe("String!");
    expect(fields.scope!.description).toBe("project, key or tag");
    expect(typeName(fields.keyId!)).toBe("ID");
    expect(typeName(fields.requestsPerMinute!)).toBe("Int");
    expect(typeName(fields.costPerDayUsd!)).toBe("Float");
    expect(isNonNullType(fields.unpricedCalls!.type)).toBe(false);
    expect(field.description).toBe(setLimit.description);
    // The role the verb declares is what the mutation guard checks.
    expect(field.extensions?.role).toBe("admin");
    expect(schema.getMutationType()!.getFields().deleteLimit!.extensions?.role).toBe("admin");
  });

  test("a query verb with no input is a field without arguments; a paged one takes first and after", () => {
    // Names only: a GraphQL argument refers back to its schema, too deep to compare whole.
    expect(
      schema
        .getQueryType()!
        .getFields()
        .webhook!.args.map((a) => a.name),
    ).toEqual([]);
    expect(
      schema
        .getQueryType()!
        .getFields()
        .limits!.args.map((a) => `${a.name}: ${a.type}`),
    ).toEqual(["after: String", "first: Int"]);
  });
});

describe("one declaration, both transports", () => {
  test("tRPC procedures are the verbs' kinds; exposing a verb as the other kind fails when the router is built", () => {
    expect(limitsProcedures.list._def.type).toBe("query");
    expect(limitsProcedures.spend._def.type).toBe("query");
    expect(limitsProcedures.set._def.type).toBe("mutation");
    expect(limitsProcedures.delete._def.type).toBe("mutation");
    expect(() => verbQuery(setLimit)).toThrow("setLimit is a mutation: expose it with verbMutation");
    expect(() => verbMutation(listLimits)).toThrow("limits is a query: expose it with verbQuery");
  });

  test("the same input is refused the same way on GraphQL and on tRPC (the verb's schema)", async () => {
    const bad = { scope: "project", requestsPerMinute: -1 };
    const viaGql = await gql(t, `mutation($i: SetLimitInput!) { setLimit(input: $i) { id } }`, { i: bad });
    expect(viaGql.errors?.[0]?.extensions?.code).toBe("VALIDATION");
    const viaTrpc = await trpcFailure(trpcClient(t).limits.set.mutate(bad as never));
    expect(viaTrpc.data?.code).toBe("VALIDATION");
    // Both name the field, from the one schema's issue.
    expect(JSON.stringify(viaGql.errors?.[0]?.extensions)).toContain("requestsPerMinute");
    expect(JSON.stringify(viaTrpc.data)).toContain("requestsPerMinute");
  });

  test("the declared role is checked before the input on both: a key without every scope is refused, whatever it sends", async () => {
    const member = await trpcClient(t).apiKeys.create.mutate({ name: "member", scopes: ["read", "write"] });
    const onTrpc = await trpcFailure(trpcClient(t, member.apiKey).limits.set.mutate({ nonsense: true } as never));
    expect(onTrpc.data?.code).toBe("FORBIDDEN");
    const onGql = await gql(t, `mutation { deleteLimit(id: "nothing") }`, {}, { key: member.apiKey });
    expect(onGql.errors?.[0]?.extensions?.code).toBe("FORBIDDEN");
    // A read its scopes allow is answered.
    expect(await trpcClient(t, member.apiKey).limits.list.query()).toEqual([]);
  });

  test("a verb is still a plain function of the domain, and its declaration travels with it", async () => {
    const ctx: Ctx = { deps: t.deps, actor: { type: "system", job: "verb-test" }, projectId: t.project.projectId, requestId: "verb-test" };
    const made = await setLimit(ctx, { scope: "project", requestsPerMinute: 5 });
    expect((await listLimits(ctx)).map((l) => l.id)).toEqual([made.id]);
    expect(await deleteLimit(ctx, { id: made.id })).toEqual({ id: made.id, deleted: true });
    expect(setLimit.name).toBe("setLimit");
    expect([setLimit.kind, setLimit.role, listLimits.kind, listLimits.role]).toEqual(["mutation", "admin", "query", "viewer"]);
    const echo = verb({
      name: "echo",
      description: "Says it back",
      kind: "query",
      role: "viewer",
      input: z.strictObject({ say: z.string() }),
      run: async (_, i) => i.say,
    });
    expect(await echo(ctx, { say: "hi" })).toBe("hi");
  });
});
