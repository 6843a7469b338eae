import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  type GraphQLInputType,
  type GraphQLNamedType,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isScalarType,
  type GraphQLField,
} from "graphql";
import { firstOwnerLink } from "../../src/domain/teams";
import { schema } from "../../src/http/graphql/schema";
import { appRouter } from "../../src/http/trpc/router";
import { createTestApp, type TestApp } from "../helpers/app";
import { consoleClient } from "../helpers/trpc";

// Every tRPC procedure and GraphQL mutation, run as each role, is allowed or FORBIDDEN as the
// issue's table says. The table below is written independently of the code: what each role may do.
const ROLES = ["viewer", "member", "admin", "owner"] as const;
type Role = (typeof ROLES)[number];
const RANK: Record<Role, number> = { viewer: 0, member: 1, admin: 2, owner: 3 };

// Admins manage keys, provider keys, custom providers, routes, limits, webhooks and masking, and invite.
const ADMIN_TRPC = new Set([
  "apiKeys.create",
  "apiKeys.rename",
  "apiKeys.update",
  "apiKeys.revoke",
  "providerKeys.set",
  "providerKeys.delete",
  "customProviders.create",
  "customProviders.update",
  "customProviders.delete",
  "routes.create",
  "routes.update",
  "routes.rollback",
  "routes.delete",
  "limits.set",
  "limits.delete",
  "pricing.createOverride",
  "pricing.deleteOverride",
  "pricing.recalculate",
  "webhooks.set",
  "webhooks.delete",
  "webhooks.test",
  "masking.set",
  "masking.delete",
  "masking.backfill",
  "masking.setRecognizer",
  "masking.deleteRecognizer",
  "team.invite",
  "team.invitations",
  "team.revokeInvitation",
  "team.auditLog",
  "team.auditExport",
]);
// Owners manage members.
const OWNER_TRPC = new Set([
  "team.createProject",
  "team.updateRole",
  "team.clearProjectRole",
  "team.remove",
  "team.memberKeys",
  "team.handKeys",
  "team.setDisabled",
  "team.unlinkSso",
]);
const ADMIN_GQL = new Set([
  "createApiKey",
  "renameApiKey",
  "updateApiKey",
  "revokeApiKey",
  "setProviderKey",
  "deleteProviderKey",
  "createCustomProvider",
  "updateCustomProvider",
  "deleteCustomProvider",
  "createRoute",
  "updateRoute",
  "rollbackRoute",
  "deleteRoute",
  "setLimit",
  "deleteLimit",
  "createPriceOverride",
  "deletePriceOverride",
  "recalculateCosts",
  "setWebhook",
  "deleteWebhook",
  "testWebhook",
  "setMaskingRule",
  "deleteMaskingRule",
  "startMaskingBackfill",
  "setMaskingRecognizer",
  "deleteMaskingRecognizer",
  "inviteMember",
]);
const OWNER_GQL = new Set(["updateMemberRole", "removeMember"]);

let t: TestApp;
const clients = {} as Record<Role, ReturnType<typeof consoleClient>>;

beforeAll(async () => {
  t = await createTestApp({ env: { HONE_API_KEY_CACHE_MS: "0" } });
  const link = (await firstOwnerLink(t.deps))!;
  clients.owner = consoleClient(t);
  await clients.owner.client.session.acceptInvitation.mutate({ token: link.split("#")[1]!, email: "owner@example.com", password: "owner password 123" });
  for (const role of ["viewer", "member", "admin"] as const) {
    const inv = await clients.owner.client.team.invite.mutate({ email: `${role}@example.com`, role });
    clients[role] = consoleClient(t);
    await clients[role].client.session.acceptInvitation.mutate({ token: inv.url.split("#")[1]!, password: `${role} password 123` });
  }
}, 60_000);
afterAll(async () => {
  await t.close();
});

async function callTrpc(c: ReturnType<typeof consoleClient>, path: string, type: string): Promise<{ status: number; code: string | null }> {
  const url = `http://localhost/trpc/${path}`;
  const headers: Record<string, string> = { "x-hone-console": "1", "content-type": "application/json", ...(c.jar.cookie ? { cookie: c.jar.cookie } : {}) };
  const res =
    type === "query"
      ? await t.app.handle(new Request(`${url}?input=${encodeURIComponent("{}")}`, { headers }))
      : await t.app.handle(new Request(url, { method: "POST", headers, body: "{}" }));
  const body = (await res.json()) as { error?: { data?: { code?: string } } };
  return { status: res.status, code: body.error?.data?.code ?? null };
}

describe("the role matrix", () => {
  const procedures = Object.entries((appRouter as unknown as { _def: { procedures: Record<string, { _def: { type: string } }> } })._def.procedures);

  test("the rules the console is served (access.rules) are this table, path for path", async () => {
    const served = (await clients.viewer.client.access.rules.query()) as Record<string, Role>;
    const wrong: string[] = [];
    for (const [path, proc] of procedures) {
      if (path.startsWith("session.") || path.startsWith("admin.") || path.startsWith("access.")) continue;
      const least: Role = OWNER_TRPC.has(path) ? "owner" : ADMIN_TRPC.has(path) ? "admin" : proc._def.type === "mutation" ? "member" : "viewer";
      if (served[path] !== least) wrong.push(`${path}: served ${served[path]}, enforced ${least}`);
    }
    expect(wrong).toEqual([]);
  });

  test("a refusal names the role that may, in words, and the one the person has", async () => {
    const refused = async (c: ReturnType<typeof consoleClient>, path: string, input: unknown) => {
      const res = await t.app.handle(
        new Request(`http://localhost/trpc/${path}`, {
          method: "POST",
          headers: { "x-hone-console": "1", "content-type": "application/json", ...(c.jar.cookie ? { cookie: c.jar.cookie } : {}) },
          body: JSON.stringify(input),
        }),
      );
      return ((await res.json()) as { error: { message: string } }).error.message;
    };
    // Limits are admin work: the viewer is told so (not that a member would do).
    expect(await refused(clients.viewer, "limits.delete", { id: "lim_x" })).toBe("Only admins and owners can delete limits; your role here is viewer");
    expect(await refused(clients.member, "limits.delete", { id: "lim_x" })).toBe("Only admins and owners can delete limits; your role here is member");
    expect(await refused(clients.viewer, "datasets.addEntries", { datasetId: "ds_x", entries: [] })).toBe(
      "Only members and above can add entries (datasets); your role here is viewer",
    );
    expect(await refused(clients.admin, "team.updateRole", { userId: "usr_x", role: "viewer" })).toBe(
      "Only owners can update role (team); your role here is admin",
    );
    const gqlRefusal = await clients.viewer.gql(`mutation { deleteLimit(id: "lim_x") }`);
    expect(gqlRefusal.errors?.[0]?.message).toBe("Only admins and owners can delete limit; your role here is viewer");
  });

  test("covers every procedure of the router", () => {
    expect(procedures.length).toBeGreaterThan(100);
    for (const p of [...ADMIN_TRPC, ...OWNER_TRPC]) expect(procedures.map(([k]) => k)).toContain(p);
  });

  for (const role of ROLES) {
    test(`tRPC: every procedure as ${role}`, async () => {
      const wrong: string[] = [];
      for (const [path, proc] of procedures) {
        if (path.startsWith("session.")) continue; // a person's own session, open to any role
        const type = proc._def.type;
        const { code } = await callTrpc(clients[role], path, type);
        if (path.startsWith("admin.")) {
          // The admin token's procedures: no person's session runs them.
          if (code !== "FORBIDDEN" && code !== "UNAUTHORIZED") wrong.push(`${path}: ${code ?? "OK"} (the admin token only)`);
          continue;
        }
        const least: Role = OWNER_TRPC.has(path) ? "owner" : ADMIN_TRPC.has(path) ? "admin" : type === "mutation" ? "member" : "viewer";
        const allowed = RANK[role] >= RANK[least];
        if (allowed && code === "FORBIDDEN") wrong.push(`${path}: FORBIDDEN, but ${role} may`);
        if (!allowed && code !== "FORBIDDEN") wrong.push(`${path}: ${code ?? "OK"}, but ${role} may not (needs ${least})`);
      }
      expect(wrong).toEqual([]);
    }, 120_000);
  }

  // GraphQL: every mutation field with arguments made from its types (the smallest valid values),
  // so that validation passes and the role check (before the input's own) decides.
  const mutation = schema.getMutationType()!;
  const probeValue = (type: GraphQLInputType, depth = 0): unknown => {
    if (isNonNullType(type)) return probeValue(type.ofType, depth);
    if (isListType(type)) return [];
    const named = getNamedType(type) as GraphQLNamedType;
    if (isEnumType(named)) return named.getValues()[0]!.value;
    if (isInputObjectType(named)) {
      const out: Record<string, unknown> = {};
      if (depth > 4) return out;
      for (const f of Object.values(named.getFields())) if (isNonNullType(f.type)) out[f.name] = probeValue(f.type, depth + 1);
      return out;
    }
    if (isScalarType(named)) {
      switch (named.name) {
        case "Int":
        case "Float":
          return 1;
        case "Boolean":
          return false;
        case "DateTime":
          return "2026-01-01T00:00:00.000Z";
        case "JSON":
          return {};
        default:
          return "x";
      }
    }
    return null;
  };
  const operationOf = (field: GraphQLField<unknown, unknown>) => {
    const required = field.args.filter((a) => isNonNullType(a.type));
    const vars = required.map((a) => `$${a.name}: ${a.type.toString()}`).join(", ");
    const args = required.map((a) => `${a.name}: $${a.name}`).join(", ");
    const named = getNamedType(field.type);
    const selection = "getFields" in named ? " { __typename }" : "";
    const query = `mutation${vars ? `(${vars})` : ""} { ${field.name}${args ? `(${args})` : ""}${selection} }`;
    return { query, variables: Object.fromEntries(required.map((a) => [a.name, probeValue(a.type)])) };
  };

  for (const role of ROLES) {
    test(`GraphQL: every mutation as ${role}`, async () => {
      const wrong: string[] = [];
      for (const field of Object.values(mutation.getFields())) {
        const { query, variables } = operationOf(field);
        const res = await clients[role].gql(query, variables);
        const code = res.errors?.[0]?.extensions?.code ?? null;
        if (code === "GRAPHQL_VALIDATION_FAILED") wrong.push(`${field.name}: the probe is not a valid operation (${res.errors?.[0]?.message})`);
        if (field.name === "createProject") {
          if (code !== "FORBIDDEN") wrong.push(`createProject: ${code ?? "OK"} (the admin token only)`);
          continue;
        }
        const least: Role = OWNER_GQL.has(field.name) ? "owner" : ADMIN_GQL.has(field.name) ? "admin" : "member";
        const allowed = RANK[role] >= RANK[least];
        if (allowed && code === "FORBIDDEN") wrong.push(`${field.name}: FORBIDDEN, but ${role} may`);
        if (!allowed && code !== "FORBIDDEN") wrong.push(`${field.name}: ${code ?? "OK"}, but ${role} may not (needs ${least})`);
      }
      expect(wrong).toEqual([]);
    }, 120_000);
  }

  test("GraphQL: reads are a viewer's; the audit log an admin's", async () => {
    const ok = await clients.viewer.gql("{ datasets { id } members { email role } }");
    expect(ok.errors).toBeUndefined();
    const audit = await clients.viewer.gql("{ auditLog(first: 1) { edges { node { action } } } }");
    expect(audit.errors?.[0]?.extensions?.code).toBe("FORBIDDEN");
    const asAdmin = await clients.admin.gql("{ auditLog(first: 1) { edges { node { action } } } }");
    expect(asAdmin.errors).toBeUndefined();
  });

  test("REST management routes with the console session: a viewer reads but cannot write; a member writes", async () => {
    const rest = (role: Role, method: string, path: string, body?: unknown) =>
      t.app.handle(
        new Request(`http://localhost/api/v1${path}`, {
          method,
          headers: { "x-hone-console": "1", cookie: clients[role].jar.cookie!, "content-type": "application/json" },
          body: body === undefined ? undefined : JSON.stringify(body),
        }),
      );
    expect((await rest("viewer", "GET", "/datasets")).status).toBe(200);
    const refused = await rest("viewer", "POST", "/datasets", { name: "by a viewer" });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { code: string }).code).toBe("FORBIDDEN");
    expect((await rest("member", "POST", "/datasets", { name: "by a member" })).status).toBeLessThan(300);
    // Without the console header the cookie does not act.
    const bare = await t.app.handle(new Request("http://localhost/api/v1/datasets", { headers: { cookie: clients.owner.jar.cookie! } }));
    expect(bare.status).toBe(403);
  });
});
