import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { createApp } from "../../src/app";
import { systemCtx } from "../../src/domain/context";
import { routeVerdicts } from "../../src/db/schema";
import { deleteExpiredRouteVerdicts } from "../../src/domain/routing";
import { createDeps } from "../../src/compose";
import { createLogger } from "../../src/core/logger";
import { createTestApp, storeProviderKey, type TestApp, testConfig } from "../helpers/app";
import { type ChaosUpstream, startChaosUpstream } from "../helpers/chaos-upstream";
import { createCriterion, createDataset, createDeployedModel, qa } from "../helpers/factories";
import { type FakeUpstream, startFakeAnthropic } from "../helpers/fake-upstreams";
import { gql, gqlData } from "../helpers/gql";
import { latestLog } from "../helpers/logs";
import { rest, type Rest } from "../helpers/rest";
import { trpcClient } from "../helpers/trpc";
import { waitFor } from "../helpers/wait-for";

// Named routes, called as hone:<slug>: weighted targets in fallback groups, rollout versions,
// a split changed and rolled back, seen by another process within HONE_ROUTE_CACHE_MS.
let t: TestApp;
let api: Rest;
let openai: ChaosUpstream;
let gemini: ChaosUpstream;
let anthropic: FakeUpstream;

const ROUTE_CACHE_MS = 300;
const env = () => ({
  OPENAI_BASE_URL: openai.url,
  GEMINI_BASE_URL: gemini.url,
  ANTHROPIC_BASE_URL: anthropic.url,
  HONE_RETRY_BACKOFF_MS: "1",
  HONE_ROUTE_CACHE_MS: String(ROUTE_CACHE_MS),
  // The Azure resources of the pool test are fakes on loopback.
  HONE_ALLOW_PRIVATE_UPSTREAMS: "true",
});

beforeAll(async () => {
  openai = await startChaosUpstream("openai");
  gemini = await startChaosUpstream("gemini");
  anthropic = startFakeAnthropic();
  t = await createTestApp({ env: env() });
  await storeProviderKey(t, "openai", "sk-openai-0001");
  await storeProviderKey(t, "gemini", "sk-gemini-0001");
  await storeProviderKey(t, "anthropic", "sk-ant-0001");
  // The fine-tunes being rolled out: served by the OpenAI backend (the chaos fake answers them).
  await createDeployedModel(t, "support-v1");
  await createDeployedModel(t, "support-v2");
  api = rest(t);
});
beforeEach(() => {
  openai.decide = () => "ok";
  gemini.decide = () => "ok";
  t.deps.caches.circuits.clear();
});
afterAll(async () => {
  await Promise.all([openai.stop(), gemini.stop(), anthropic.stop()]);
  await t.close();
});

const ROUTE = `id slug revision attempts stickyTag groups { balance targets { model weight timeoutMs version } } previous { groups { targets { model weight version } } }`;
type RouteOut = {
  id: string;
  slug: string;
  revision: number;
  groups: { balance: string; targets: { model: string; weight: number; timeoutMs: number | null; version: string | null }[] }[];
  previous: { groups: { targets: { model: string; weight: number; version: string | null }[] }[] } | null;
};
const split = (v1: number, v2: number) => [
  {
    targets: [
      { model: "hone:support-v1", weight: v1, version: "v1" },
      { model: "hone:support-v2", weight: v2, version: "v2" },
    ],
  },
  { targets: [{ model: "anthropic:claude-haiku-4-5", weight: 100, version: "standby" }] },
];
const create = (slug: string, groups: unknown, extra: Record<string, unknown> = {}) =>
  gql(t, `mutation($input: CreateRouteInput!) { createRoute(input: $input) { ${ROUTE} } }`, { input: { slug, groups, ...extra } });
const update = (slug: string, groups: unknown) =>
  gqlData<{ updateRoute: RouteOut }>(t, `mutation($input: UpdateRouteInput!) { updateRoute(input: $input) { ${ROUTE} } }`, { input: { slug, groups } });
const ask = (q: string, model: string, extra: Record<string, unknown> = {}) => ({ model, messages: [{ role: "user" as const, content: q }], ...extra });
/** The version that answered, from the chaos fake's echo of the fine-tune's upstream model. */
const versionOf = (model: string) => (model.includes("support-v2") ? "v2" : model.includes("support-v1") ? "v1" : model);

/** Calls the route n times (32 at once, not logged) and counts the answers by version. */
async function spread(app: Rest, model: string, n: number, tags?: (i: number) => Record<string, string>) {
  const counts: Record<string, number> = {};
  let next = 0;
  const worker = async () => {
    while (next < n) {
      const i = next++;
      const r = await app.ok("POST /chat/completions", { body: ask(`s${i}`, model, { hone: { logRequest: false, ...(tags ? { tags: tags(i) } : {}) } }) });
      const v = versionOf(r.model);
      counts[v] = (counts[v] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: 32 }, worker));
  return counts;
}

describe("routes", () => {
  test("created with GraphQL, called as hone:<slug>: weights hold within 3 points over 10,000 calls; logs keep route and version", async () => {
    const r = await create("support", split(90, 10));
    expect(r.errors).toBeUndefined();
    const route = (r.data as { createRoute: RouteOut }).createRoute;
    expect(route).toMatchObject({ slug: "support", revision: 1, previous: null });
    expect(route.groups[0]!).toEqual({
      balance: "weighted",
      targets: [
        { model: "hone:support-v1", weight: 90, timeoutMs: null, version: "v1" },
        { model: "hone:support-v2", weight: 10, timeoutMs: null, version: "v2" },
      ],
    });

    // The draw, over 10,000 calls (to provider models: no fine-tune lookup per call).
    const providers = await create("split", [
      {
        targets: [
          { model: "openai:gpt-4o-mini", weight: 90 },
          { model: "gemini:gemini-2.5-flash", weight: 10 },
        ],
      },
    ]);
    expect(providers.errors).toBeUndefined();
    const counts = await spread(api, "hone:split", 10_000);
    expect(counts["gpt-4o-mini"]! + counts["gemini-2.5-flash"]!).toBe(10_000);
    expect(Math.abs(counts["gemini-2.5-flash"]! / 10_000 - 0.1)).toBeLessThan(0.03);
    const rollout = await spread(api, "hone:support", 500);
    expect(rollout.v1! + rollout.v2!).toBe(500);
    expect(rollout.v2!).toBeGreaterThan(20);
    expect(rollout.v2!).toBeLessThan(90);

    const answer = await api.ok("POST /chat/completions", { body: ask("logged", "hone:support") });
    const log = await latestLog(t);
    expect(log.model).toBe("hone:support");
    expect(log.route).toBe("support");
    expect(log.routeVersion).toBe(versionOf(answer.model));
    expect(log.attempts).toEqual([expect.objectContaining({ target: `hone:support-${log.routeVersion}`, version: log.routeVersion, next: "answered" })]);
  });

  test("the next group answers when every target of the first fails", async () => {
    openai.decide = () => "500";
    const r = await api.ok("POST /chat/completions", { body: ask("down", "hone:support") });
    expect(r.choices[0]).toMatchObject({ message: { content: "echo: down" } });
    const log = await latestLog(t);
    expect(log.routeVersion).toBe("standby");
    expect(log.attempts!.map((a) => a.next)).toEqual(["retried", "fell-back", "retried", "fell-back", "answered"]);
  });

  test("a new split, then rollback in one call; another process follows both within HONE_ROUTE_CACHE_MS", async () => {
    // A second Hone process on the same database, with its own memory.
    const deps2 = createDeps({
      config: testConfig(env()),
      database: t.db.database,
      logger: createLogger("silent", () => {}),
      secretKey: t.deps.secretKey,
    });
    const api2 = rest({ ...t, app: createApp(deps2), request: requestOn(createApp(deps2), t.project.apiKey) });
    expect((await spread(api2, "hone:support", 50)).v1).toBeGreaterThan(30); // 90/10: it has read the route

    const updated = (await update("support", split(0, 100))).updateRoute;
    expect(updated.revision).toBe(2);
    expect(updated.previous!.groups[0]!.targets.map((x) => x.weight)).toEqual([90, 10]);
    expect(await spread(api, "hone:support", 50)).toEqual({ v2: 50 }); // this process: at once
    const started = performance.now();
    await waitFor(async () => (await spread(api2, "hone:support", 20)).v2 === 20, { timeoutMs: 2_000, message: "the other process to follow the split" });
    expect(performance.now() - started).toBeLessThan(2_000);

    const rolled = await gqlData<{ rollbackRoute: RouteOut }>(t, `mutation { rollbackRoute(slug: "support") { ${ROUTE} } }`);
    expect(rolled.rollbackRoute.groups[0]!.targets.map((x) => x.weight)).toEqual([90, 10]);
    expect(rolled.rollbackRoute.revision).toBe(3);
    await waitFor(async () => ((await spread(api2, "hone:support", 100)).v1 ?? 0) > 60, {
      timeoutMs: 2_000,
      message: "the other process to follow the rollback",
    });
  });

  test("a target's own timeout: a silent target is given up on after its timeoutMs, and the next answers", async () => {
    const made = await create(
      "quick",
      [{ targets: [{ model: "openai:gpt-4o-mini", weight: 100, timeoutMs: 300 }] }, { targets: [{ model: "gemini:gemini-2.5-flash", weight: 100 }] }],
      { attempts: 1 },
    );
    expect(made.errors).toBeUndefined();
    openai.decide = () => "timeout";
    const started = performance.now();
    const r = await api.ok("POST /chat/completions", { body: ask("quick", "hone:quick") });
    expect(r.model).toBe("gemini-2.5-flash");
    expect(performance.now() - started).toBeLessThan(2_000);
    const attempts = (await latestLog(t)).attempts!;
    expect(attempts.map((a) => [a.statusCode, a.next])).toEqual([
      [504, "fell-back"],
      [200, "answered"],
    ]);
    expect(attempts[0]!.error).toContain("did not answer within 300 ms");
    expect(attempts[0]!.latencyMs).toBeGreaterThanOrEqual(290);
  });

  test("stickiness: calls with the same tag value keep the same target", async () => {
    await gqlData(t, `mutation($input: UpdateRouteInput!) { updateRoute(input: $input) { id } }`, {
      input: { slug: "support", groups: split(50, 50), stickyTag: "user" },
    });
    const byUser = new Map<string, Set<string>>();
    for (let u = 0; u < 40; u++) {
      for (let k = 0; k < 4; k++) {
        const r = await api.ok("POST /chat/completions", { body: ask("hi", "hone:support", { hone: { tags: { user: `u${u}` }, logRequest: false } }) });
        const seen = byUser.get(`u${u}`) ?? new Set();
        seen.add(versionOf(r.model));
        byUser.set(`u${u}`, seen);
      }
    }
    expect([...byUser.values()].every((s) => s.size === 1)).toBe(true);
    const v2Users = [...byUser.values()].filter((s) => s.has("v2")).length;
    expect(v2Users).toBeGreaterThan(5);
    expect(v2Users).toBeLessThan(35);
  });

  test("per-version figures: requests, errors, latency and cost from the route's logs", async () => {
    const made = await create("stats", split(50, 50));
    expect(made.errors).toBeUndefined();
    for (let i = 0; i < 20; i++) await api.ok("POST /chat/completions", { body: ask(`st${i}`, "hone:stats") });
    openai.decide = () => "400";
    for (let i = 0; i < 2; i++) await api.fail("POST /chat/completions", { body: ask(`bad${i}`, "hone:stats") });
    await t.deps.logWriter.flush();
    const data = await gqlData<{
      route: {
        stats: { version: string | null; requests: number; errors: number; errorRate: number; latencyP50Ms: number; latencyP95Ms: number; costUsd: number }[];
      };
    }>(t, `{ route(slug: "stats") { stats { version requests errors errorRate latencyP50Ms latencyP95Ms costUsd } } }`);
    const stats = data.route.stats;
    const ok = stats.filter((s) => s.version === "v1" || s.version === "v2");
    expect(ok.reduce((s, v) => s + v.requests, 0)).toBe(20);
    expect(ok.every((s) => s.latencyP95Ms >= s.latencyP50Ms && s.costUsd > 0)).toBe(true);
    // The request's own 400s are answered by no version: they count apart, as errors.
    expect(stats.find((s) => s.version === null)).toMatchObject({ requests: 2, errors: 2, errorRate: 1 });
    // Logs filter by route and version.
    const logs = await gqlData<{ logs: { edges: { node: { routeVersion: string } }[] } }>(
      t,
      `{ logs(first: 50, filter: {route: "stats", routeVersion: "v1"}) { edges { node { routeVersion } } } }`,
    );
    expect(logs.logs.edges.length).toBe(ok.find((s) => s.version === "v1")?.requests ?? 0);
    expect(logs.logs.edges.every((e) => e.node.routeVersion === "v1")).toBe(true);
    // Usage splits by route and by route version (read from the logs).
    const usage = await gqlData<{ usage: { groups: { group: string | null; requests: number; errors: number }[] } }>(
      t,
      `query($from: String!, $to: String!) { usage(from: $from, to: $to, bucket: "hour", groupBy: "routeVersion", filter: {route: "stats"}) { groups { group requests errors } } }`,
      { from: new Date(Date.now() - 3_600_000).toISOString(), to: new Date(Date.now() + 60_000).toISOString() },
    );
    const byGroup = Object.fromEntries(usage.usage.groups.map((g) => [g.group, g.requests]));
    expect(byGroup["stats v1"]! + byGroup["stats v2"]!).toBe(20);
    expect(byGroup["stats (no version)"]).toBe(2);
    const byRoute = await gqlData<{ usage: { groups: { group: string | null; requests: number }[] } }>(
      t,
      `query($from: String!, $to: String!) { usage(from: $from, to: $to, bucket: "day", groupBy: "route") { groups { group requests } } }`,
      { from: new Date(Date.now() - 3_600_000).toISOString(), to: new Date(Date.now() + 60_000).toISOString() },
    );
    expect(byRoute.usage.groups.find((g) => g.group === "stats")?.requests).toBe(22);
  });

  test("a judged sample: each version's pass rate from the route's criteria, judged off the answer's path", async () => {
    const crit = await createCriterion(t, { judgeModel: "openai:judge", prompt: "Is this right? {{output}}" });
    const made = await create("judged", split(50, 50), { judge: { criteria: [crit.id], sampleRate: 1 } });
    expect(made.errors).toBeUndefined();
    // Answers that say "wrong" fail the judge (the chaos fake's verdict).
    for (let i = 0; i < 10; i++) await api.ok("POST /chat/completions", { body: ask(i % 2 ? `right ${i}` : `wrong ${i}`, "hone:judged") });
    const stats = await waitFor(
      async () => {
        const d = await gqlData<{ route: { stats: { version: string; judged: number; passRate: number | null; requests: number }[] } }>(
          t,
          `{ route(slug: "judged") { stats { version judged passRate requests } } }`,
        );
        return d.route.stats.reduce((s, v) => s + v.judged, 0) === 10 ? d.route.stats : null;
      },
      { message: "the 10 sampled judgements" },
    );
    const judged = stats.reduce((s, v) => s + v.judged, 0);
    const passed = stats.reduce((s, v) => s + (v.passRate ?? 0) * v.judged, 0);
    expect(judged).toBe(10);
    expect(Math.round(passed)).toBe(5);
    // The judge calls are Hone's own: internal logs, not the application's (each logged before its verdict was stored).
    await t.deps.logWriter.flush();
    const internal = await gqlData<{ logs: { edges: unknown[] } }>(
      t,
      `{ logs(first: 50, filter: {internal: true, internalKind: "judge"}) { edges { node { id } } } }`,
    );
    expect(internal.logs.edges.length).toBe(10);
    // Over time: the pass rate per version and bucket. Verdicts of 40 minutes ago (v1 passing 1 of
    // 4, v2 4 of 4) land in their own bucket, apart from this minute's.
    const ago = new Date(Date.now() - 40 * 60_000);
    await t.deps.database.db.insert(routeVerdicts).values(
      [false, false, false, true, true, true, true, true].map((passed, i) => ({
        id: `rv_old_${i}`,
        projectId: t.project.projectId,
        route: "judged",
        version: i < 4 ? "v1" : "v2",
        passed,
        createdAt: ago,
      })),
    );
    type Point = { start: string; version: string | null; requests: number; judged: number; passRate: number | null };
    const series = await gqlData<{ route: { series: { bucketMs: number; from: string; to: string; points: Point[] } } }>(
      t,
      `query($from: DateTime) { route(slug: "judged") { series(from: $from) { bucketMs from to points { start version requests judged passRate } } } }`,
      { from: new Date(Date.now() - 3_600_000).toISOString() },
    );
    expect(series.route.series.bucketMs).toBe(60_000);
    const pts = series.route.series.points;
    const oldBucket = new Date(Math.floor(ago.getTime() / 60_000) * 60_000).toISOString();
    expect(pts.filter((p) => p.start === oldBucket).map((p) => [p.version, p.judged, p.passRate, p.requests])).toEqual([
      ["v1", 4, 0.25, 0],
      ["v2", 4, 1, 0],
    ]);
    const recent = pts.filter((p) => p.start !== oldBucket);
    expect(recent.reduce((s, p) => s + p.judged, 0)).toBe(10);
    expect(recent.reduce((s, p) => s + p.requests, 0)).toBe(10);
    expect(pts.map((p) => p.start)).toEqual([...pts.map((p) => p.start)].sort());
    // The default window is a day in hours; a month in days.
    const day = await gqlData<{ route: { series: { bucketMs: number } } }>(t, `{ route(slug: "judged") { series { bucketMs } } }`);
    expect(day.route.series.bucketMs).toBe(3_600_000);
    const month = await trpcClient(t).routes.series.query({ slug: "judged", from: new Date(Date.now() - 30 * 86_400_000).toISOString() });
    expect(month.bucketMs).toBe(86_400_000);
    expect(month.points.reduce((s, p) => s + p.judged, 0)).toBe(18);
    // A window longer than 31 days is refused; verdicts past the log retention go; a deleted route's go with it.
    const wide = await gql(t, `{ route(slug: "judged") { stats(from: "2020-01-01T00:00:00Z") { version } } }`);
    expect(wide.errors?.[0]?.extensions?.code).toBe("VALIDATION");
    expect(JSON.stringify(wide.errors?.[0]?.extensions)).toContain("at most 31 days");
    const systemCtxOf = { ...systemCtx(t.deps, "test"), projectId: t.project.projectId };
    expect(await deleteExpiredRouteVerdicts(systemCtxOf, { before: new Date(Date.now() - 3_600_000) })).toBe(0);
    await gqlData(t, `mutation { deleteRoute(slug: "judged") }`);
    const left = await t.deps.database.db.select().from(routeVerdicts).where(eq(routeVerdicts.route, "judged"));
    expect(left).toHaveLength(0);
    // A criterion that does not exist is refused by name.
    const bad = await create("judged-bad", split(50, 50), { judge: { criteria: ["crit_nope"], sampleRate: 0.5 } });
    expect(bad.errors?.[0]?.message).toContain("judge.criteria.0");
  });

  test("a pool of Azure deployments: a route over two resources, weighted, each with its own circuit", async () => {
    const [east, west] = await Promise.all([startChaosUpstream("east"), startChaosUpstream("west")]);
    try {
      for (const [slug, fake] of [
        ["azure-east", east],
        ["azure-west", west],
      ] as const) {
        await gqlData(t, `mutation($input: CreateCustomProviderInput!) { createCustomProvider(input: $input) { id } }`, {
          input: { slug, kind: "azure", baseUrl: fake.url.replace(/\/v1$/, ""), apiKey: `key-${slug}`, apiVersion: "2024-10-21" },
        });
      }
      const made = await create("azure-pool", [
        {
          targets: [
            { model: "hone:azure-east/gpt-4o", weight: 50 },
            { model: "hone:azure-west/gpt-4o", weight: 50 },
          ],
        },
      ]);
      expect(made.errors).toBeUndefined();
      // Both answer: the split holds roughly.
      const both = await spread(api, "hone:azure-pool", 400);
      expect(east.counts.ok + west.counts.ok).toBe(400);
      expect(east.counts.ok).toBeGreaterThan(140);
      expect(both["gpt-4o"]).toBe(400);
      // East's deployment is rate limited: every call still answers (from west), and east's circuit
      // opens, so it stops being tried.
      east.decide = () => "429";
      const before = east.counts["429"];
      for (let i = 0; i < 60; i++) await api.ok("POST /chat/completions", { body: ask(`pool ${i}`, "hone:azure-pool", { hone: { logRequest: false } }) });
      const tried = east.counts["429"] - before;
      expect(tried).toBeGreaterThanOrEqual(5);
      expect(tried).toBeLessThan(15);
      expect(west.counts.ok).toBeGreaterThanOrEqual(400 - east.counts.ok + 60);
    } finally {
      await Promise.all([east.stop(), west.stop()]);
    }
  });

  test("tRPC: create, list, get, update, rollback, stats, delete", async () => {
    const trpc = trpcClient(t);
    const made = await trpc.routes.create.mutate({ slug: "via-trpc", groups: [{ targets: [{ model: "gemini:g", weight: 100 }] }] });
    expect(made).toMatchObject({ slug: "via-trpc", revision: 1, previous: null });
    expect((await trpc.routes.list.query()).map((r) => r.slug)).toContain("via-trpc");
    await trpc.routes.update.mutate({ slug: "via-trpc", groups: [{ targets: [{ model: "openai:gpt-4o-mini", weight: 100 }] }], attempts: 3 });
    expect((await trpc.routes.get.query({ slug: "via-trpc" })).attempts).toBe(3);
    expect((await trpc.routes.rollback.mutate({ slug: "via-trpc" })).groups[0]!.targets[0]!.model).toBe("gemini:g");
    expect(await trpc.routes.stats.query({ slug: "via-trpc" })).toEqual([]);
    expect(await trpc.routes.delete.mutate({ slug: "via-trpc" })).toEqual({ slug: "via-trpc" });
    const gone = await api.fail("POST /chat/completions", { body: ask("x", "hone:via-trpc") });
    expect(gone.status).toBe(404);
  });
});

describe("bad route configuration is a 400 naming the field", () => {
  const issuesOf = (r: { errors?: { extensions?: { code?: string; issues?: unknown } }[] }) => r.errors?.[0]?.extensions;

  test("weights not summing to 100, an unknown target, a route as a target, an unknown custom provider", async () => {
    const sum = await create("bad1", [
      {
        targets: [
          { model: "gemini:g", weight: 60 },
          { model: "openai:gpt-4o-mini", weight: 30 },
        ],
      },
    ]);
    expect(issuesOf(sum)?.code).toBe("VALIDATION");
    expect(JSON.stringify(issuesOf(sum)?.issues)).toContain("sum to 100 (these sum to 90)");

    const unknown = await create("bad2", [{ targets: [{ model: "hone:nope", weight: 100 }] }]);
    expect(unknown.errors?.[0]?.message).toContain("groups.0.targets.0.model: unknown target hone:nope");
    expect(JSON.stringify(issuesOf(unknown)?.issues)).toContain('"path":["groups",0,"targets",0,"model"]');

    const loop = await create("bad3", [{ targets: [{ model: "hone:support", weight: 100 }] }]);
    expect(loop.errors?.[0]?.message).toContain("hone:support is a route");
    const self = await create("bad4", [{ targets: [{ model: "hone:bad4", weight: 100 }] }]);
    expect(self.errors?.[0]?.message).toContain("hone:bad4 is a route");

    const cp = await create("bad5", [{ targets: [{ model: "hone:nocp/llama", weight: 100 }] }]);
    expect(cp.errors?.[0]?.message).toContain("no custom provider nocp");
    const syntax = await create("bad6", [{ targets: [{ model: "nope:x", weight: 100 }] }]);
    expect(syntax.errors?.[0]?.message).toContain("unknown provider prefix");
    const none = await create("bad7", []);
    expect(issuesOf(none)?.code).toBe("VALIDATION");
    const routes = await gqlData<{ routes: { slug: string }[] }>(t, "{ routes { slug } }");
    expect(routes.routes.some((r) => r.slug.startsWith("bad"))).toBe(false);
  });

  test("one namespace with fine-tunes: a route cannot take a fine-tune's slug, nor a fine-tune a route's", async () => {
    const taken = await create("support-v1", [{ targets: [{ model: "gemini:g", weight: 100 }] }]);
    expect(taken.errors?.[0]?.extensions?.code).toBe("CONFLICT");
    const again = await create("support", split(50, 50));
    expect(again.errors?.[0]?.extensions?.code).toBe("CONFLICT");
    const datasetId = await createDataset(t, { entries: [qa("q", "a")] });
    const ft = await api.fail("POST /models", {
      body: { datasetId, slug: "support", trainingConfig: { provider: "openai", baseModel: "gpt-4o-mini-2024-07-18" } },
    });
    expect(ft.status).toBe(409);
    expect(ft.body.message).toContain("A route is named support");
  });

  test("another project's routes are invisible", async () => {
    const other = await t.createProject("other");
    const r = await gql(t, `{ route(slug: "support") { id } }`, {}, { key: other.apiKey });
    expect(r.errors?.[0]?.extensions?.code).toBe("NOT_FOUND");
    const call = await api.fail("POST /chat/completions", { key: other.apiKey, body: ask("x", "hone:support") });
    expect(call.status).toBe(404);
    const upd = await gql(t, `mutation { rollbackRoute(slug: "support") { id } }`, {}, { key: other.apiKey });
    expect(upd.errors?.[0]?.extensions?.code).toBe("NOT_FOUND");
  });
});

/** An app.handle request function with a project key, as TestApp.request builds them. */
function requestOn(app: ReturnType<typeof createApp>, apiKey: string): TestApp["request"] {
  return (method, path, o = {}) => {
    const headers: Record<string, string> = { ...o.headers };
    const key = o.key === undefined ? apiKey : o.key;
    if (key !== null) headers.authorization = `Bearer ${key}`;
    let body: string | undefined;
    if (o.body !== undefined) {
      body = typeof o.body === "string" ? o.body : JSON.stringify(o.body);
      headers["content-type"] ??= "application/json";
    }
    return app.handle(new Request(`http://localhost${path}`, { method, headers, body }));
  };
}
