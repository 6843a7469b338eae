import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createEmptyPostgresDatabase, TEST_DATABASE_URL } from "../helpers/db";
import { startFakeOpenAI, type FakeUpstream } from "../helpers/fake-upstreams";
import { killStartedServers, startServer, type RunningServer } from "../helpers/process";
import { waitFor } from "../helpers/wait-for";
import type { ChatErrorBody } from "../helpers/rest";

// Limits held by real Hone processes: two on one Postgres sharing one cap under 1,000 concurrent
// calls, counters kept across a restart; on the embedded database, one process and its restart.

const KEY = "hone_sk_limitsprocslimitsprocs000001";
const UPSTREAM_KEY = "sk-limits-procs-0001";
// $0.00075 a call: 1,000 input and 1,000 output tokens of gpt-4o-mini.
const CALL_USD = 0.00075;

let fake: FakeUpstream;
let drop: (() => Promise<void>) | undefined;
let dataDir: string;

beforeAll(() => {
  fake = startFakeOpenAI({ apiKey: UPSTREAM_KEY, chatUsage: { prompt_tokens: 1000, completion_tokens: 1000, total_tokens: 2000 } });
  dataDir = mkdtempSync(join(tmpdir(), "hone-limits-"));
});
afterAll(async () => {
  killStartedServers();
  await fake.stop();
  await drop?.();
  rmSync(dataDir, { recursive: true, force: true });
});

const headers = { authorization: `Bearer ${KEY}`, "content-type": "application/json" };
/** A GraphQL call that must succeed: its data, as the caller types it. */
const gql = async <T = unknown>(s: RunningServer, query: string): Promise<T> => {
  const res = await fetch(`${s.url}/graphql`, { method: "POST", headers, body: JSON.stringify({ query }) });
  const body = (await res.json()) as { data: T; errors?: unknown };
  if (body.errors) throw new Error(JSON.stringify(body.errors));
  return body.data;
};
const chat = (s: RunningServer, body: Record<string, unknown> = {}) =>
  fetch(`${s.url}/api/v1/chat/completions`, {
    method: "POST",
    headers,
    body: JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }], max_tokens: 1000, ...body }),
  });
const msToNextMinute = () => 60_000 - (Date.now() % 60_000);

describe("limits held by real processes", () => {
  test(TEST_DATABASE_URL
    ? "two processes on one Postgres: budgets settle streamed and failed calls and survive a restart; 1,000 concurrent calls against 100 a minute admit 100; the next minute admits again"
    : "the embedded database: one process holds the counters, and a restart keeps them", async () => {
    const base = { HONE_BOOTSTRAP_API_KEY: KEY, OPENAI_BASE_URL: `${fake.url}/v1`, HONE_LOG_FLUSH_MS: "10" };
    if (!TEST_DATABASE_URL) {
      const env = { ...base, HONE_DATA_DIR: dataDir };
      let s = await startServer(env);
      await gql(s, `mutation { setProviderKey(input: {provider: "openai", apiKey: "${UPSTREAM_KEY}"}) { last4 } }`);
      // Far from a minute's end, so that both halves fall in one window.
      if (msToNextMinute() < 25_000) await Bun.sleep(msToNextMinute() + 100);
      await gql(s, `mutation { setLimit(input: {scope: "project", requestsPerMinute: 5}) { id } }`);
      for (let i = 0; i < 3; i++) expect((await chat(s)).status).toBe(200);
      expect(await s.stop()).toBe(0);
      s = await startServer(env);
      const after = [];
      for (let i = 0; i < 3; i++) after.push((await chat(s)).status);
      expect(after).toEqual([200, 200, 429]);
      expect(await s.stop()).toBe(0);
      return;
    }
    const db = await createEmptyPostgresDatabase();
    drop = db.drop;
    const env = { ...base, DATABASE_URL: db.url, HONE_SECRET_KEY: Buffer.alloc(32, 5).toString("base64") };
    let [a, b] = await Promise.all([startServer(env), startServer(env)]);
    await gql(a, `mutation { setProviderKey(input: {provider: "openai", apiKey: "${UPSTREAM_KEY}"}) { last4 } }`);
    // Both limits are set before B serves its first call (a process reads limits at most every 5 s).
    await gql(a, `mutation { setLimit(input: {scope: "tag", tagKey: "burst", tagValue: "yes", requestsPerMinute: 100}) { id } }`);
    // A budget of four calls for one user: a streamed call settles its real cost, a failed call
    // gives back its reservation, and the counters outlive a restart of the process that spent.
    // (The failing model has no price: the limit admits such calls, counted at what they cost.)
    const limit = (
      await gql<{ setLimit: { id: string } }>(
        a,
        `mutation { setLimit(input: {scope: "tag", tagKey: "user", tagValue: "carl", costPerDayUsd: ${4 * CALL_USD}, unpricedCalls: "allow"}) { id } }`,
      )
    ).setLimit;
    // The burst (about 2 s) must fit in one minute.
    if (msToNextMinute() < 10_000) await Bun.sleep(msToNextMinute() + 100);
    const burstStarted = Date.now();
    const burst = { metadata: { burst: "yes" } };
    const responses = await Promise.all(Array.from({ length: 1000 }, (_, i) => chat(i % 2 ? a! : b!, burst)));
    expect(Date.now() - burstStarted).toBeLessThan(10_000);
    const statuses = responses.map((r) => r.status);
    const admitted = statuses.filter((s) => s === 200).length;
    expect(statuses.filter((s) => s !== 200 && s !== 429)).toEqual([]);
    expect(admitted).toBeLessThanOrEqual(100);
    // Slices run out at one request each, so both processes spend theirs before refusing.
    expect(admitted).toBeGreaterThanOrEqual(98);
    const refused = responses.find((r) => r.status === 429)!;
    expect(refused.headers.get("x-ratelimit-limit-requests")).toBe("100");
    expect(refused.headers.get("x-ratelimit-remaining-requests")).toBe("0");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(((await refused.json()) as ChatErrorBody).error.code).toBe("rate_limit_exceeded");
    await Promise.all(responses.map((r) => r.body?.cancel().catch(() => {})));

    const carl = { metadata: { user: "carl" } };
    expect((await chat(a, carl)).status).toBe(200);
    const streamed = await chat(a, { ...carl, stream: true, stream_options: { include_usage: true } });
    expect(await streamed.text()).toContain("[DONE]");
    expect((await chat(a, { ...carl, model: "openai:error-500" })).status).toBe(500);
    expect(await a.stop()).toBe(0);
    a = await startServer(env);
    expect((await chat(a, carl)).status).toBe(200);
    expect((await chat(b, carl)).status).toBe(200);
    const over = await chat(b, carl);
    expect(over.status).toBe(429);
    expect(((await over.json()) as ChatErrorBody).error.code).toBe("budget_exceeded");
    const spend = await waitFor(
      async () => (await gql<{ limitSpend: { metric: string; spent: number }[] }>(b, `{ limitSpend(limitId: "${limit.id}") { metric spent } }`)).limitSpend[0],
      {
        until: (s) => s !== undefined && Math.abs(s.spent - 4 * CALL_USD) < 1e-9,
        message: (s) => `spend: ${JSON.stringify(s)}`,
      },
    );
    expect(spend.metric).toBe("usd_day");
    // The next minute admits again, on both (the budget's calls above ran while this one ends).
    if (Math.floor(Date.now() / 60_000) === Math.floor(burstStarted / 60_000)) await Bun.sleep(msToNextMinute() + 200);
    expect((await chat(a, burst)).status).toBe(200);
    expect((await chat(b, burst)).status).toBe(200);
    expect(await a.stop()).toBe(0);
    expect(await b.stop()).toBe(0);
  }, 180_000);
});
