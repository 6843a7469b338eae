import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { firstOwnerLink } from "../../src/domain/teams";
import { createTestApp, type TestApp } from "../helpers/app";
import { gql } from "../helpers/gql";
import { rest } from "../helpers/rest";
import { codeOf, consoleClient, trpcClient } from "../helpers/trpc";

// The lists that grow with use are paged on every transport: `first` (at most HONE_MAX_PAGE_SIZE,
// more is a 400) and `after` (the last item's id; one that is not in the list is a 400, not an
// empty page), each in its own order, and the pages together are the whole list, each item once.

const MAX = 5;
let t: TestApp;
let owner: ReturnType<typeof consoleClient>;
let datasetId: string;

beforeAll(async () => {
  t = await createTestApp({ env: { HONE_MAX_PAGE_SIZE: String(MAX), HONE_API_KEY_CACHE_MS: "0" } });
  const link = (await firstOwnerLink(t.deps))!;
  owner = consoleClient(t);
  await owner.client.session.acceptInvitation.mutate({ token: link.split("#")[1]!, email: "owner@example.com", password: "owner password 123" });
  const trpc = trpcClient(t);
  for (let i = 0; i < 6; i++) await trpc.apiKeys.create.mutate({ name: `key-${i}` });
  for (let i = 0; i < 3; i++) {
    const inv = await owner.client.team.invite.mutate({ email: `p${i}@example.com`, role: i === 0 ? "admin" : "viewer" });
    if (i < 2) await consoleClient(t).client.session.acceptInvitation.mutate({ token: inv.url.split("#")[1]!, password: `person ${i} password 123` });
  }
  for (const slug of ["zeta", "alpha", "mid"])
    await trpc.customProviders.create.mutate({ slug, kind: "openai", baseUrl: `https://${slug}.example.com/v1`, apiKey: "sk-x" });
  for (const [model, from] of [
    ["openai:b", "2026-01-01"],
    ["openai:a", "2026-02-01"],
    ["openai:a", "2026-01-01"],
  ] as const)
    await trpc.pricing.createOverride.mutate({ model, effectiveFrom: from, rates: { input_mtok: 1, output_mtok: 2 } });
  await trpc.limits.set.mutate({ scope: "tag", tagKey: "user", requestsPerMinute: 5 });
  await trpc.limits.set.mutate({ scope: "project", requestsPerMinute: 50 });
  await trpc.limits.set.mutate({ scope: "key", keyId: (await trpc.apiKeys.list.query())[0]!.id, requestsPerMinute: 9 });
  for (const slug of ["r-c", "r-a", "r-b"]) await trpc.routes.create.mutate({ slug, groups: [{ targets: [{ model: "openai:gpt-4o-mini", weight: 100 }] }] });
  const ds = await trpc.datasets.create.mutate({ name: "paged" });
  datasetId = ds.id;
  for (let i = 0; i < 3; i++) await trpc.monitors.create.mutate({ name: `m${i}`, datasetId, filter: {} });
  const criterion = await trpc.criteria.create.mutate({ name: "judge", judgeModel: "openai:judge", prompt: "Good answer? {{output}}" });
  for (const model of ["openai:m1", "openai:m2", "openai:m3"]) await trpc.onlineEvals.create.mutate({ model, criteria: [criterion.id], sampleRate: 0.1 });
  for (let i = 0; i < 3; i++) await trpc.datasets.createPruningRule.mutate({ datasetId, text: `rule ${i}` });
}, 120_000);
afterAll(() => t.close());

/** Reads a list page by page, 2 at a time, and checks each page's size. */
async function pages<T>(read: (input: { first: number; after?: string }) => Promise<T[]>, idOf: (item: T) => string): Promise<T[]> {
  const out: T[] = [];
  let after: string | undefined;
  for (let i = 0; i < 20; i++) {
    const page = await read({ first: 2, ...(after ? { after } : {}) });
    expect(page.length).toBeLessThanOrEqual(2);
    out.push(...page);
    if (page.length < 2) break;
    after = idOf(page.at(-1)!);
  }
  return out;
}

describe("paged lists on tRPC", () => {
  const trpc = () => trpcClient(t);
  const cases: [string, (i: { first?: number; after?: string }) => Promise<{ id?: string; userId?: string }[]>, (x: any) => string][] = [
    ["apiKeys.list", (i) => trpc().apiKeys.list.query(i), (k) => k.id],
    ["team.members", (i) => owner.client.team.members.query(i), (m) => m.userId],
    ["team.invitations", (i) => owner.client.team.invitations.query(i), (x) => x.id],
    ["customProviders.list", (i) => trpc().customProviders.list.query(i), (p) => p.id],
    ["pricing.overrides", (i) => trpc().pricing.overrides.query(i), (o) => o.id],
    ["limits.list", (i) => trpc().limits.list.query(i), (l) => l.id],
    ["routes.list", (i) => trpc().routes.list.query(i), (r) => r.id],
    ["monitors.list", (i) => trpc().monitors.list.query(i), (m) => m.id],
    ["onlineEvals.list", (i) => trpc().onlineEvals.list.query(i), (e) => e.id],
    ["relabelRuns.list", (i) => trpc().relabelRuns.list.query(i), (r) => r.id],
    ["datasets.pruningRules", (i) => trpc().datasets.pruningRules.query({ datasetId, ...i }), (r) => r.id],
  ];
  for (const [name, read, idOf] of cases) {
    test(`${name}: the pages are the whole list, in its order, each item once; first past the maximum and an unknown after are 400s`, async () => {
      const whole = await read({});
      expect(whole.length).toBeLessThanOrEqual(MAX);
      const paged = await pages(read, idOf);
      // The first page of the default size is where the pages of 2 start; past it they go on.
      expect(paged.slice(0, whole.length).map(idOf)).toEqual(whole.map(idOf));
      if (whole.length < MAX) expect(paged.length).toBe(whole.length);
      expect(new Set(paged.map(idOf)).size).toBe(paged.length);
      expect(await codeOf(read({ first: MAX + 1 }))).toBe("VALIDATION");
      expect(await codeOf(read({ after: "nope_0000" }))).toBe("VALIDATION");
    });
  }

  test("the orders: keys oldest first, members owners first, providers by slug, prices by model then date, limits project first, routes by slug", async () => {
    const keys = await trpc().apiKeys.list.query();
    expect(keys.length).toBe(MAX);
    expect(keys[0]!.name).not.toBe("key-5");
    const members = await owner.client.team.members.query();
    expect(members.map((m) => m.role)).toEqual(["owner", "admin", "viewer"]);
    expect((await trpc().customProviders.list.query()).map((p) => p.slug)).toEqual(["alpha", "mid", "zeta"]);
    expect((await trpc().pricing.overrides.query()).map((o) => `${o.model} ${o.effectiveFrom.slice(0, 7)}`)).toEqual([
      "openai:a 2026-01",
      "openai:a 2026-02",
      "openai:b 2026-01",
    ]);
    expect((await trpc().limits.list.query()).map((l) => l.scope)).toEqual(["project", "key", "tag"]);
    expect((await trpc().routes.list.query()).map((r) => r.slug)).toEqual(["r-a", "r-b", "r-c"]);
    // Seven keys in all: the rest on the next page.
    const rest_ = await trpc().apiKeys.list.query({ after: keys.at(-1)!.id });
    expect(rest_.length).toBe(2);
  });

  test("a list that took no input before still answers a raw call sending none, or null", async () => {
    for (const path of ["apiKeys.list", "routes.list", "monitors.list", "customProviders.list", "pricing.overrides"]) {
      for (const query of ["", "?input=null", `?input=${encodeURIComponent("{}")}`]) {
        const res = await t.request("GET", `/trpc/${path}${query}`, { key: t.project.apiKey });
        expect(`${path}${query} ${res.status}`).toBe(`${path}${query} 200`);
      }
    }
  });

  test("another project's item is not a cursor of this project's list", async () => {
    const other = await t.createProject("other");
    const [otherKey] = await trpcClient(t, other.apiKey).apiKeys.list.query();
    expect(await codeOf(trpc().apiKeys.list.query({ after: otherKey!.id }))).toBe("VALIDATION");
  });
});

describe("paged lists on GraphQL and REST", () => {
  test("GraphQL takes first/after on each list; past the maximum it is refused", async () => {
    for (const field of ["apiKeys", "customProviders", "priceOverrides", "limits", "routes", "monitors", "onlineEvals", "relabelRuns"]) {
      const first = await gql<Record<string, { id: string }[]>>(t, `{ ${field}(first: 2) { id } }`);
      expect(first.errors).toBeUndefined();
      const page = first.data![field]!;
      expect(page.length).toBeLessThanOrEqual(2);
      if (page.length === 2) {
        const next = await gql<Record<string, { id: string }[]>>(t, `query ($after: String) { ${field}(first: 2, after: $after) { id } }`, {
          after: page[1]!.id,
        });
        expect(next.errors).toBeUndefined();
        expect(next.data![field]!.map((x) => x.id)).not.toContain(page[0]!.id);
      }
      const tooMany = await gql(t, `{ ${field}(first: ${MAX + 1}) { id } }`);
      expect(tooMany.errors?.[0]?.message).toContain("HONE_MAX_PAGE_SIZE");
    }
    const rules = await gql<{ pruningRules: { id: string }[] }>(t, `query ($d: ID!) { pruningRules(datasetId: $d, first: 1) { id } }`, { d: datasetId });
    expect(rules.errors).toBeUndefined();
    expect(rules.data!.pruningRules.length).toBeLessThanOrEqual(1);
  });

  test("REST GET /price-overrides takes limit and after, and says has_more", async () => {
    const api = rest(t);
    const first = await api.ok("GET /price-overrides", { query: { limit: "2" } });
    expect(first.data.length).toBe(2);
    expect(first.has_more).toBe(true);
    const next = await api.ok("GET /price-overrides", { query: { limit: "2", after: first.data[1]!.id } });
    expect(next.data.length).toBe(1);
    expect(next.has_more).toBe(false);
    const bad = await api.fail("GET /price-overrides", { query: { limit: String(MAX + 1) } });
    expect(bad.status).toBe(400);
  });
});
