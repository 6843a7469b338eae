import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHmac, timingSafeEqual } from "node:crypto";
import { startJobs } from "../../src/background";
import type { Worker } from "../../src/background/worker";
import { flushLeases } from "../../src/domain/limits";
import { alertExpiringKeys, deleteOldCounters } from "../../src/domain/webhooks";
import { createTestApp, serve, storeProviderKey, type TestApp } from "../helpers/app";
import { startFakeOpenAI, type FakeUpstream } from "../helpers/fake-upstreams";
import { gql, gqlData } from "../helpers/gql";
import { trpcClient, trpcFailure } from "../helpers/trpc";
import { waitFor } from "../helpers/wait-for";

// Alerts to a real receiving HTTP server: budget thresholds and keys near expiry, signed with the
// project's secret, retried when the receiver fails, listed as deliveries.

const UPSTREAM_KEY = "sk-webhooks-upstream-0001";
/** A delivered event's body: its id and type, and the event's data (a budget alert's has its threshold). */
type EventBody = { id: string; type: string; data: { threshold?: number; [key: string]: unknown } };
type Delivery = { id: string; event: string; status: string; attempts: number; lastStatusCode: number | null };
type Received = { headers: Record<string, string>; body: string; json: EventBody };

let t: TestApp;
let fake: FakeUpstream;
let server: { url: string; stop(): Promise<void> };
let worker: Worker;
let receiver: ReturnType<typeof Bun.serve>;
const received: Received[] = [];
/** Delivery ids the receiver fails once (HTTP 500) before accepting. */
const failOnce = new Set<string>();

beforeAll(async () => {
  receiver = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: async (req) => {
      const body = await req.text();
      const headers = Object.fromEntries(req.headers);
      const json = JSON.parse(body) as EventBody;
      if (failOnce.delete(json.type)) return new Response("not now", { status: 500 });
      received.push({ headers, body, json });
      return new Response("ok");
    },
  });
  fake = startFakeOpenAI({ apiKey: UPSTREAM_KEY, chatUsage: { prompt_tokens: 1000, completion_tokens: 1000, total_tokens: 2000 } });
  t = await createTestApp({
    // The receiver is on loopback: opened for it alone, as an operator would.
    env: { OPENAI_BASE_URL: `${fake.url}/v1`, HONE_UPSTREAM_ALLOWLIST: `127.0.0.1:${receiver.port}`, HONE_JOB_POLL_MS: "20" },
  });
  await storeProviderKey(t, "openai", UPSTREAM_KEY);
  server = serve(t.app);
  worker = startJobs(t.deps);
});
afterAll(async () => {
  await worker.stop();
  await server.stop();
  await fake.stop();
  receiver.stop(true);
  await t.close();
});

const SET = `mutation ($url: String!, $rotate: Boolean) { setWebhook(url: $url, rotateSecret: $rotate) { webhook { url secretHint } secret } }`;

/** The check a receiver makes (docs/limits.md, "Alerts (webhooks)"): HMAC-SHA256 of "<t>.<body>" under the secret, and a recent timestamp. */
function verify(secret: string, header: string, body: string, toleranceS = 300): boolean {
  const parts = Object.fromEntries(header.split(",").map((p) => p.split("=") as [string, string]));
  const ts = Number(parts.t);
  if (!Number.isFinite(ts) || Math.abs(Date.now() / 1000 - ts) > toleranceS) return false;
  const expected = createHmac("sha256", secret).update(`${ts}.${body}`).digest();
  const given = Buffer.from(parts.v1 ?? "", "hex");
  return given.length === expected.length && timingSafeEqual(given, expected);
}

describe("webhook settings", () => {
  test("a private or metadata address is refused like a custom provider's; a bad URL is a 400", async () => {
    for (const url of [
      "http://10.0.0.5/hook",
      "http://169.254.169.254/latest",
      "http://localhost:9/x",
      "http://127.0.0.1:1/other-port",
      "ftp://example.com/x",
      "not a url",
    ]) {
      const r = await gql(t, SET, { url });
      expect(r.errors?.[0]?.extensions?.code, url).toBe("VALIDATION");
    }
    expect((await gqlData(t, `{ webhook { url } }`)).webhook).toBeNull();
    const del = await gql(t, `mutation { deleteWebhook }`);
    expect(del.errors?.[0]?.extensions?.code).toBe("NOT_FOUND");
  });
});

describe("alerts", () => {
  let secret: string;

  test("the secret is shown once; rotating gives a new one", async () => {
    const url = `http://127.0.0.1:${receiver.port}/hone`;
    const set = (await gqlData(t, SET, { url })).setWebhook;
    expect(set.webhook.url).toBe(url);
    expect(set.secret).toMatch(/^whsec_[A-Za-z0-9]{32}$/);
    const again = (await gqlData(t, SET, { url })).setWebhook;
    expect(again.secret).toBeNull();
    const rotated = (await gqlData(t, SET, { url, rotate: true })).setWebhook;
    expect(rotated.secret).not.toBe(set.secret);
    expect(rotated.webhook.secretHint).toBe(rotated.secret.slice(-4));
    secret = rotated.secret;
    expect(JSON.stringify(await gqlData(t, `{ webhook { url secretHint } }`))).not.toContain(secret);
  });

  test("a budget crossing 50%, 80% and 100% is alerted once per threshold, signed", async () => {
    const limit = (await gqlData(t, `mutation { setLimit(input: {scope: "tag", tagKey: "user", costPerDayUsd: 0.0015}) { id } }`)).setLimit;
    const call = () =>
      fetch(`${server.url}/api/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${t.project.apiKey}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }], max_tokens: 1000, metadata: { user: "ann" } }),
      });
    // Each call costs $0.00075: the first reaches 50%, the second 100% (past 80% on the way).
    expect((await call()).status).toBe(200);
    await flushLeases(t.deps);
    expect((await call()).status).toBe(200);
    await flushLeases(t.deps);
    const refused = await call();
    expect(refused.status).toBe(429);
    await flushLeases(t.deps);
    const alerts = await waitFor(() => received.filter((r) => r.json.type === "budget.threshold"), {
      until: (a) => a.length >= 3,
      message: (a) => `alerts so far: ${JSON.stringify(a?.map((x) => x.json))}`,
    });
    expect(alerts.map((a) => a.json.data.threshold as number).sort((x, y) => x - y)).toEqual([50, 80, 100]);
    for (const a of alerts) {
      expect(a.json.data).toMatchObject({ limitId: limit.id, scope: "tag", tagKey: "user", tagValue: "ann", budget: "costPerDayUsd", limitUsd: 0.0015 });
      expect(a.headers["hone-event"]).toBe("budget.threshold");
      expect(a.headers["hone-delivery"]).toBe(a.json.id);
      expect(verify(secret, a.headers["hone-signature"]!, a.body)).toBe(true);
      expect(verify("whsec_wrong", a.headers["hone-signature"]!, a.body)).toBe(false);
      expect(verify(secret, a.headers["hone-signature"]!, a.body.replace("ann", "bob"))).toBe(false);
    }
    // Spending more in the same window raises nothing new.
    await flushLeases(t.deps);
    await Bun.sleep(200);
    expect(received.filter((r) => r.json.type === "budget.threshold").length).toBe(3);
  });

  test("a receiver that fails is retried with backoff; the delivery log shows the attempts", async () => {
    failOnce.add("webhook.test");
    const d = (await gqlData(t, `mutation { testWebhook { id status } }`)).testWebhook;
    expect(d.status).toBe("PENDING");
    const done = await waitFor(
      async () =>
        (
          await gqlData<{ webhookDeliveries: Delivery[] }>(t, `{ webhookDeliveries(first: 20) { id event status attempts lastStatusCode } }`)
        ).webhookDeliveries.find((x) => x.id === d.id),
      { until: (x) => x?.status === "DELIVERED", timeoutMs: 15_000 },
    );
    expect(done).toMatchObject({ event: "webhook.test", attempts: 2, lastStatusCode: 200 });
    expect(received.filter((r) => r.json.id === d.id).length).toBe(1);
  }, 30_000);

  test("a key near its expiry is alerted once", async () => {
    const expiresAt = new Date(Date.now() + 2 * 86_400_000).toISOString();
    const k = (await gqlData(t, `mutation ($e: String) { createApiKey(input: {name: "temp", expiresAt: $e}) { key { id } } }`, { e: expiresAt })).createApiKey;
    expect(await alertExpiringKeys(t.deps)).toBe(1);
    expect(await alertExpiringKeys(t.deps)).toBe(0);
    const alert = await waitFor(() => received.find((r) => r.json.type === "key.expiring"));
    expect(alert.json.data).toMatchObject({ keyId: k.key.id, name: "temp", expiresAt });
    expect(verify(secret, alert.headers["hone-signature"]!, alert.body)).toBe(true);
  });

  test("tRPC: get, deliveries, delete; another project sees none of it", async () => {
    const api = trpcClient(t);
    expect((await api.webhooks.get.query())?.url).toContain(`127.0.0.1:${receiver.port}`);
    expect((await api.webhooks.deliveries.query({ first: 2 })).length).toBe(2);
    const other = await t.createProject("webhooks-other");
    const theirs = trpcClient(t, other.apiKey);
    expect(await theirs.webhooks.get.query()).toBeNull();
    expect(await theirs.webhooks.deliveries.query()).toEqual([]);
    expect((await trpcFailure(theirs.webhooks.test.mutate())).data?.code).toBe("NOT_FOUND");
    await api.webhooks.delete.mutate();
    expect(await api.webhooks.get.query()).toBeNull();
  });

  test("the upkeep deletes counters of windows long over and deliveries past 30 days, nothing newer", async () => {
    const api = trpcClient(t);
    const before = (await api.webhooks.deliveries.query({ first: 100 })).length;
    expect(before).toBeGreaterThan(0);
    expect(await deleteOldCounters(t.deps)).toBe(0);
    expect((await api.webhooks.deliveries.query({ first: 100 })).length).toBe(before);
    const later = { ...t.deps, clock: () => new Date(Date.now() + 40 * 86_400_000) };
    expect(await deleteOldCounters(later)).toBeGreaterThanOrEqual(before + 1);
    expect(await api.webhooks.deliveries.query({ first: 100 })).toEqual([]);
    expect(await api.limits.spend.query()).toEqual([]);
  });
});
