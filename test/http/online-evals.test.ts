import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, count, eq, isNull } from "drizzle-orm";
import { startJobs } from "../../src/background";
import type { Worker } from "../../src/background/worker";
import { requestLogs, routeVerdicts } from "../../src/db/schema";
import { createTestApp, serve, storeProviderKey, type TestApp } from "../helpers/app";
import { startFakeAnthropic, startFakeOpenAI } from "../helpers/fake-upstreams";
import { type ChaosUpstream, startChaosUpstream } from "../helpers/chaos-upstream";
import { createCriterion } from "../helpers/factories";
import { gql, gqlData } from "../helpers/gql";
import { rest, type Rest } from "../helpers/rest";
import { trpcClient, trpcFailure } from "../helpers/trpc";
import { waitFor } from "../helpers/wait-for";

// Online evaluation: a share of the application's calls to a model (or a route) judged by criteria
// after they answered; pass rates over time by model, route and version; an alert when one falls.

let t: TestApp;
let api: Rest;
let openai: ChaosUpstream;
let worker: Worker;
let server: { url: string; stop(): Promise<void> };
let receiver: ReturnType<typeof Bun.serve>;
/** Delivered webhook events: the event header, and the body's data (the alert's figures). */
const received: { event: string; json: { data: Record<string, unknown> } }[] = [];

beforeAll(async () => {
  receiver = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: async (req) => {
      received.push({ event: req.headers.get("hone-event") ?? "", json: (await req.json()) as { data: Record<string, unknown> } });
      return new Response("ok");
    },
  });
  openai = await startChaosUpstream("openai");
  t = await createTestApp({
    env: { OPENAI_BASE_URL: openai.url, HONE_UPSTREAM_ALLOWLIST: `127.0.0.1:${receiver.port}`, HONE_JOB_POLL_MS: "20" },
  });
  await storeProviderKey(t, "openai", "sk-openai-0001");
  api = rest(t);
  server = serve(t.app);
  worker = startJobs(t.deps);
});
afterAll(async () => {
  await worker.stop();
  await server.stop();
  await openai.stop();
  receiver.stop(true);
  await t.close();
});

const FIELDS = "id model criteria sampleRate alertBelow alertMinJudged status judged passRate";
type OnlineEvalOut = {
  id: string;
  model: string;
  criteria: string[];
  sampleRate: number;
  alertBelow: number | null;
  alertMinJudged: number;
  status: string;
  judged: number;
  passRate: number | null;
};
const create = (input: Record<string, unknown>, key?: string) =>
  gql<{ createOnlineEval: OnlineEvalOut }>(t, `mutation($input: CreateOnlineEvalInput!) { createOnlineEval(input: $input) { ${FIELDS} } }`, { input }, { key });
const ask = (q: string, model: string, extra: Record<string, unknown> = {}) => ({ model, messages: [{ role: "user" as const, content: q }], ...extra });

/** Verdicts stored for plain calls to a model. */
async function verdictsOf(model: string): Promise<number> {
  const [r] = await t.deps.database.db
    .select({ n: count() })
    .from(routeVerdicts)
    .where(and(eq(routeVerdicts.projectId, t.project.projectId), isNull(routeVerdicts.route), eq(routeVerdicts.model, model)));
  return Number(r!.n);
}
/** Waits until no sampled judgement is in flight and the count of verdicts stopped moving. */
async function settled(model: string): Promise<number> {
  let last = -1;
  return waitFor(
    async () => {
      const n = await verdictsOf(model);
      const done = t.deps.caches.routeJudging.inFlight === 0 && n === last;
      last = n;
      return done ? n : null;
    },
    { message: "the sampled judgements to settle", timeoutMs: 60_000, intervalMs: 200 },
  );
}

describe("online evaluation of a model", () => {
  test("created on GraphQL and tRPC; the model named as logs spell it; bad input is a 400 naming the field; others' are not found", async () => {
    const crit = await createCriterion(t, { name: "ok?" });
    const made = await create({ model: "gpt-4o-mini", criteria: [crit.id], sampleRate: 0.25 });
    expect(made.errors).toBeUndefined();
    expect(made.data!.createOnlineEval).toMatchObject({
      model: "openai:gpt-4o-mini",
      criteria: [crit.id],
      sampleRate: 0.25,
      alertBelow: null,
      alertMinJudged: 20,
      status: "ACTIVE",
      judged: 0,
      passRate: null,
    });
    // One per model, whatever the spelling.
    const again = await create({ model: "openai:gpt-4o-mini", criteria: [crit.id], sampleRate: 1 });
    expect(again.errors?.[0]?.extensions?.code).toBe("CONFLICT");

    const bad = async (input: Record<string, unknown>, field: string) => {
      const r = await create({ model: "openai:other", criteria: [crit.id], sampleRate: 0.5, ...input });
      expect(r.errors?.[0]?.extensions?.code).toBe("VALIDATION");
      expect(JSON.stringify(r.errors![0]!.extensions)).toContain(field);
    };
    await bad({ sampleRate: 0 }, "sampleRate");
    await bad({ sampleRate: 2 }, "sampleRate");
    await bad({ criteria: [] }, "criteria");
    await bad({ alertBelow: 1.5 }, "alertBelow");
    await bad({ model: "" }, "model");
    expect((await create({ model: "openai:x", criteria: ["crit_missing"], sampleRate: 1 })).errors?.[0]?.extensions?.code).toBe("NOT_FOUND");

    const trpc = trpcClient(t);
    const listed = await trpc.onlineEvals.list.query();
    expect(listed.map((e) => e.model)).toContain("openai:gpt-4o-mini");
    const paused = await trpc.onlineEvals.update.mutate({ id: made.data!.createOnlineEval.id, status: "PAUSED", alertBelow: 0.8 });
    expect(paused).toMatchObject({ status: "PAUSED", alertBelow: 0.8 });
    expect((await trpcFailure(trpc.onlineEvals.update.mutate({ id: made.data!.createOnlineEval.id, sampleRate: -1 }))).data?.httpStatus).toBe(400);

    const other = await t.createProject("other");
    const seen = await gql(t, `query($id: ID!) { onlineEval(id: $id) { id } }`, { id: made.data!.createOnlineEval.id }, { key: other.apiKey });
    expect(seen.errors?.[0]?.extensions?.code).toBe("NOT_FOUND");
    expect((await gqlData<{ onlineEvals: unknown[] }>(t, `{ onlineEvals { id } }`, {}, { key: other.apiKey })).onlineEvals).toEqual([]);
    // Their criterion is not ours to judge with.
    expect((await create({ model: "openai:y", criteria: [crit.id], sampleRate: 1 }, other.apiKey)).errors?.[0]?.extensions?.code).toBe("NOT_FOUND");
    const del = await gql(t, `mutation($id: ID!) { deleteOnlineEval(id: $id) }`, { id: made.data!.createOnlineEval.id }, { key: other.apiKey });
    expect(del.errors?.[0]?.extensions?.code).toBe("NOT_FOUND");
    expect(
      (await gqlData<{ deleteOnlineEval: string }>(t, `mutation($id: ID!) { deleteOnlineEval(id: $id) }`, { id: made.data!.createOnlineEval.id }))
        .deleteOnlineEval,
    ).toBe(made.data!.createOnlineEval.id);
    expect((await gql(t, `query($id: ID!) { onlineEval(id: $id) { id } }`, { id: made.data!.createOnlineEval.id })).errors?.[0]?.extensions?.code).toBe(
      "NOT_FOUND",
    );
  });

  test("samples within 3 points of its rate over 2,000 calls, judged off the answer's path as internal calls", async () => {
    const crit = await createCriterion(t, { name: "sampled" });
    const made = await create({ model: "openai:sampled-model", criteria: [crit.id], sampleRate: 0.1 });
    expect(made.errors).toBeUndefined();
    let next = 0;
    const worker = async () => {
      while (next < 2000) {
        const i = next++;
        await api.ok("POST /chat/completions", { body: ask(`question ${i}`, "sampled-model") });
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    // Another model's calls are not judged.
    await api.ok("POST /chat/completions", { body: ask("elsewhere", "openai:not-evaluated") });
    const judged = await settled("openai:sampled-model");
    // Sampled: judged, or skipped because 64 judgements were already in flight (a loaded machine).
    const sampled = judged + t.deps.caches.routeJudging.skipped;
    expect(sampled).toBeGreaterThanOrEqual(140);
    expect(sampled).toBeLessThanOrEqual(260);
    expect(judged).toBeGreaterThan(0);
    const metrics = await t.deps.metrics.registry.metrics();
    expect(metrics).toContain(`hone_online_samples_skipped_total ${t.deps.caches.routeJudging.skipped}`);
    expect(await verdictsOf("openai:not-evaluated")).toBe(0);
    // Every answer was right: all passed; the judge calls are Hone's own (internal, kind judge).
    const e = await gqlData<{ onlineEval: OnlineEvalOut }>(t, `query($id: ID!) { onlineEval(id: $id) { ${FIELDS} } }`, { id: made.data!.createOnlineEval.id });
    expect(e.onlineEval).toMatchObject({ judged, passRate: 1 });
    const internal = await waitFor(
      async () => {
        const [r] = await t.deps.database.db
          .select({ n: count() })
          .from(requestLogs)
          .where(and(eq(requestLogs.projectId, t.project.projectId), eq(requestLogs.source, "internal"), eq(requestLogs.internalKind, "judge")));
        return Number(r!.n) >= judged ? Number(r!.n) : null;
      },
      { message: "the judge calls' logs" },
    );
    expect(internal).toBe(judged);
    await gqlData(t, `mutation($input: UpdateOnlineEvalInput!) { updateOnlineEval(input: $input) { id } }`, {
      input: { id: made.data!.createOnlineEval.id, status: "PAUSED" },
    });
  }, 180_000);

  test("pass rates by model and over time, streamed answers too; paused judges nothing; an alert when the rate falls", async () => {
    const secret = await gqlData<{ setWebhook: { secret: string } }>(t, `mutation($url: String!) { setWebhook(url: $url) { secret } }`, {
      url: `http://127.0.0.1:${receiver.port}/hook`,
    });
    expect(secret.setWebhook.secret).toBeTruthy();
    const crit = await createCriterion(t, { name: "right?" });
    const made = await create({ model: "openai:graded", criteria: [crit.id], sampleRate: 1, alertBelow: 0.5, alertMinJudged: 6 });
    expect(made.errors).toBeUndefined();
    // Two right answers (one streamed), then failures: the rate falls below 0.5 with 6 judged.
    await api.ok("POST /chat/completions", { body: ask("right 1", "openai:graded") });
    const streamed = await t.request("POST", "/api/v1/chat/completions", { body: ask("right 2", "openai:graded", { stream: true }) });
    expect(streamed.status).toBe(200);
    await streamed.text();
    expect(await settled("openai:graded")).toBe(2);
    expect(received.filter((r) => r.event === "evaluation.pass_rate_low")).toEqual([]);
    for (let i = 0; i < 6; i++) await api.ok("POST /chat/completions", { body: ask(`wrong ${i}`, "openai:graded") });
    expect(await settled("openai:graded")).toBe(8);

    const alert = await waitFor(() => received.find((r) => r.event === "evaluation.pass_rate_low") ?? null, { message: "the pass-rate alert" });
    expect(alert.json.data).toMatchObject({ model: "openai:graded", alertBelow: 0.5 });
    expect(alert.json.data.judged).toBeGreaterThanOrEqual(6);
    expect(alert.json.data.passRate).toBeLessThan(0.5);
    // Once per hour: more failures raise no second alert.
    for (let i = 0; i < 3; i++) await api.ok("POST /chat/completions", { body: ask(`wrong again ${i}`, "openai:graded") });
    expect(await settled("openai:graded")).toBe(11);
    // Settled: every judgement has run its pass-rate check, so a second alert would be a delivery by now.
    const deliveries = await gqlData<{ webhookDeliveries: { event: string }[] }>(t, `{ webhookDeliveries(first: 50) { event } }`);
    expect(deliveries.webhookDeliveries.filter((d) => d.event === "evaluation.pass_rate_low")).toHaveLength(1);
    expect(received.filter((r) => r.event === "evaluation.pass_rate_low")).toHaveLength(1);

    type Rates = {
      passRates: {
        bucketMs: number;
        groups: { group: string | null; judged: number; passed: number; passRate: number | null }[];
        series: { start: string; group: string | null; judged: number }[];
      };
    };
    const rates = await gqlData<Rates>(t, `{ passRates(groupBy: "model") { bucketMs groups { group judged passed passRate } series { start group judged } } }`);
    const graded = rates.passRates.groups.find((g) => g.group === "openai:graded")!;
    expect(graded).toEqual({ group: "openai:graded", judged: 11, passed: 2, passRate: 2 / 11 });
    expect(rates.passRates.bucketMs).toBe(3_600_000);
    expect(rates.passRates.series.filter((p) => p.group === "openai:graded").reduce((s, p) => s + p.judged, 0)).toBe(11);
    // The same on tRPC.
    const viaTrpc = await trpcClient(t).onlineEvals.passRates.query({ groupBy: "model" });
    expect(viaTrpc.groups.find((g) => g.group === "openai:graded")).toMatchObject({ judged: 11, passed: 2 });
    const bad = await gql(t, `{ passRates(groupBy: "colour") { bucketMs } }`);
    expect(bad.errors?.[0]?.extensions?.code).toBe("VALIDATION");

    // Paused: answered, never judged.
    await gqlData(t, `mutation($input: UpdateOnlineEvalInput!) { updateOnlineEval(input: $input) { id } }`, {
      input: { id: made.data!.createOnlineEval.id, status: "PAUSED" },
    });
    for (let i = 0; i < 3; i++) await api.ok("POST /chat/completions", { body: ask(`paused ${i}`, "openai:graded") });
    expect(await settled("openai:graded")).toBe(11);
  }, 60_000);

  test("a route's judged sample: pass rate by route version and by the model that answered, with the route's alert", async () => {
    const crit = await createCriterion(t, { name: "route ok?" });
    const r = await gql<{ createRoute: { slug: string; judge: unknown } }>(
      t,
      `mutation($input: CreateRouteInput!) { createRoute(input: $input) { slug judge { sampleRate alertBelow alertMinJudged } } }`,
      {
        input: {
          slug: "graded-route",
          groups: [
            {
              targets: [
                { model: "openai:alpha", weight: 50, version: "a" },
                { model: "openai:beta", weight: 50, version: "b" },
              ],
            },
          ],
          judge: { criteria: [crit.id], sampleRate: 1, alertBelow: 0.9, alertMinJudged: 10 },
        },
      },
    );
    expect(r.errors).toBeUndefined();
    expect(r.data!.createRoute.judge).toEqual({ sampleRate: 1, alertBelow: 0.9, alertMinJudged: 10 });
    for (let i = 0; i < 12; i++) await api.ok("POST /chat/completions", { body: ask(i % 3 === 0 ? `wrong ${i}` : `right ${i}`, "hone:graded-route") });
    await waitFor(
      async () => {
        const [row] = await t.deps.database.db
          .select({ n: count() })
          .from(routeVerdicts)
          .where(and(eq(routeVerdicts.projectId, t.project.projectId), eq(routeVerdicts.route, "graded-route")));
        return Number(row!.n) === 12 && t.deps.caches.routeJudging.inFlight === 0 ? true : null;
      },
      { message: "the route's 12 verdicts" },
    );
    type Groups = { passRates: { groups: { group: string | null; judged: number; passed: number }[] } };
    const byVersion = await gqlData<Groups>(t, `{ passRates(groupBy: "routeVersion") { groups { group judged passed } } }`);
    const versions = byVersion.passRates.groups.filter((g) => g.group?.startsWith("graded-route@"));
    expect(versions.map((g) => g.group).sort()).toEqual(["graded-route@a", "graded-route@b"]);
    expect(versions.reduce((s, g) => s + g.judged, 0)).toBe(12);
    expect(versions.reduce((s, g) => s + g.passed, 0)).toBe(8);
    const byModel = await gqlData<Groups>(t, `{ passRates(groupBy: "model") { groups { group judged } } }`);
    const models = byModel.passRates.groups.filter((g) => g.group === "openai:alpha" || g.group === "openai:beta");
    expect(models.reduce((s, g) => s + g.judged, 0)).toBe(12);
    const byRoute = await gqlData<Groups>(t, `{ passRates(groupBy: "route") { groups { group judged passed } } }`);
    expect(byRoute.passRates.groups).toContainEqual({ group: "graded-route", judged: 12, passed: 8 });
    // 8 of 12 is below 0.9 with 12 judged: the route's alert.
    const alert = await waitFor(() => received.find((x) => x.event === "evaluation.pass_rate_low" && x.json.data.route === "graded-route") ?? null, {
      message: "the route's pass-rate alert",
    });
    expect(alert.json.data).toMatchObject({ route: "graded-route", alertBelow: 0.9 });
  }, 60_000);

  test("answers of the Responses and Messages APIs passed natively to their provider are judged too, streamed or whole", async () => {
    const oa = startFakeOpenAI();
    const an = startFakeAnthropic();
    const n = await createTestApp({ env: { OPENAI_BASE_URL: `${oa.url}/v1`, ANTHROPIC_BASE_URL: an.url } });
    try {
      await storeProviderKey(n, "openai", "sk-native-0001");
      await storeProviderKey(n, "anthropic", "sk-ant-native-0001");
      const crit = await createCriterion(n, { name: "native" });
      for (const model of ["gpt-4o-mini", "anthropic:claude-sonnet-4-5"]) {
        const r = await gql(n, `mutation($input: CreateOnlineEvalInput!) { createOnlineEval(input: $input) { id } }`, {
          input: { model, criteria: [crit.id], sampleRate: 1 },
        });
        expect(r.errors).toBeUndefined();
      }
      for (const stream of [false, true]) {
        const resp = await n.request("POST", "/api/v1/responses", { body: { model: "gpt-4o-mini", input: `fine ${stream}`, stream } });
        expect(resp.status).toBe(200);
        await resp.text();
        const msg = await n.request("POST", "/api/v1/messages", {
          body: { model: "claude-sonnet-4-5", max_tokens: 64, messages: [{ role: "user", content: `fine ${stream}` }], stream },
          key: null,
          headers: { "x-api-key": n.project.apiKey, "anthropic-version": "2023-06-01" },
        });
        expect(msg.status).toBe(200);
        await msg.text();
      }
      const verdicts = (model: string) =>
        n.deps.database.db
          .select({ n: count() })
          .from(routeVerdicts)
          .where(and(eq(routeVerdicts.projectId, n.project.projectId), eq(routeVerdicts.model, model)))
          .then((r) => Number(r[0]!.n));
      await waitFor(async () => ((await verdicts("openai:gpt-4o-mini")) === 2 && (await verdicts("anthropic:claude-sonnet-4-5")) === 2 ? true : null), {
        message: "two verdicts per protocol",
      });
      const rates = await gqlData<{ passRates: { groups: { group: string; judged: number; passed: number }[] } }>(
        n,
        `{ passRates { groups { group judged passed } } }`,
      );
      expect(rates.passRates.groups).toContainEqual({ group: "openai:gpt-4o-mini", judged: 2, passed: 2 });
      expect(rates.passRates.groups).toContainEqual({ group: "anthropic:claude-sonnet-4-5", judged: 2, passed: 2 });
    } finally {
      await n.close();
      await Promise.all([oa.stop(), an.stop()]);
    }
  }, 60_000);
});
