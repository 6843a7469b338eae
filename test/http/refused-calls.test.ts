import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { createTestApp, serve, storeProviderKey, type TestApp } from "../helpers/app";
import { startFakeAnthropic, startFakeOpenAI, type FakeUpstream } from "../helpers/fake-upstreams";
import { gqlData } from "../helpers/gql";
import { trpcClient } from "../helpers/trpc";
import { systemCtx } from "../../src/domain/context";
import { closeUsageHours } from "../../src/domain/logs";
import { usageFromRollups } from "../../src/domain/logs/usage-from-rollups";

// Calls Hone refuses before any upstream (a rate limit, a spent budget, a model the key may not
// call, a scope it lacks) are logged with their reason and no attempt, never charged, filterable,
// and counted in usage as refused; past HONE_REFUSALS_LOGGED_PER_MINUTE a key's refusals of a
// minute are folded into one row.

const UPSTREAM_KEY = "sk-refused-upstream-0001";
const ANTHROPIC_KEY = "sk-ant-refused-0001";
const PER_MINUTE = 3;

let t: TestApp;
let fake: FakeUpstream;
let anthropicFake: FakeUpstream;
let server: { url: string; stop(): Promise<void> };
/** The test's clock, one second into a minute; moved by hand to the next. */
let now = Math.floor(Date.now() / 60_000) * 60_000 + 1_000;
/** The hammering test's project and time, for the rollups' test after it. */
let hammered: { projectId: string; key: string; at: number } | null = null;

beforeAll(async () => {
  fake = startFakeOpenAI({ apiKey: UPSTREAM_KEY });
  anthropicFake = startFakeAnthropic({ apiKey: ANTHROPIC_KEY });
  t = await createTestApp({
    env: { OPENAI_BASE_URL: `${fake.url}/v1`, ANTHROPIC_BASE_URL: anthropicFake.url, HONE_REFUSALS_LOGGED_PER_MINUTE: String(PER_MINUTE) },
    deps: { clock: () => new Date(now) },
  });
  server = serve(t.app);
});
afterAll(async () => {
  await server.stop();
  await fake.stop();
  await anthropicFake.stop();
  await t.close();
});

async function freshProject(name: string) {
  const p = await t.createProject(name);
  await storeProviderKey(t, "openai", UPSTREAM_KEY, p.projectId);
  await storeProviderKey(t, "anthropic", ANTHROPIC_KEY, p.projectId);
  return p;
}

const openai = (key: string) => new OpenAI({ apiKey: key, baseURL: `${server.url}/api/v1`, maxRetries: 0 });

type ListedLog = {
  id: string;
  statusCode: number | null;
  refusal: string | null;
  refusals: number | null;
  costUsd: number | null;
  provider: string | null;
  api: string;
  errorMessage: string | null;
  attempts: unknown;
};

/** The HTTP status an SDK call failed with (the SDKs' promises are awaited, not handed to expect). */
async function statusOf(call: () => Promise<unknown>): Promise<number | "ok"> {
  try {
    await call();
    return "ok";
  } catch (err) {
    return (err as { status?: number }).status ?? -1;
  }
}

async function listLogs(key: string, filter: Record<string, unknown> = {}): Promise<ListedLog[]> {
  await t.deps.logWriter.flush();
  const page = await trpcClient(t, key).logs.list.query({ filter, first: 100 });
  return page.logs as unknown as ListedLog[];
}

async function refusedUsage(key: string): Promise<{ requests: number; errors: number; refused: number; costUsd: number }> {
  await t.deps.logWriter.flush();
  const d = await gqlData<{ usage: { totals: { requests: number; errors: number; refused: number; costUsd: number } } }>(
    t,
    `query ($from: String!, $to: String!) { usage(from: $from, to: $to, bucket: "hour") { totals { requests errors refused costUsd } } }`,
    { from: new Date(now - 3_600_000).toISOString(), to: new Date(now + 3_600_000).toISOString() },
    { key },
  );
  return d.usage.totals;
}

describe("refused calls are logged", () => {
  test("a rate limit: the refusals are logged with their reason, no upstream call, no cost; filterable; usage counts them", async () => {
    const p = await freshProject("refused-rate");
    await gqlData(
      t,
      `mutation ($input: SetLimitInput!) { setLimit(input: $input) { id } }`,
      { input: { scope: "project", requestsPerMinute: 2 } },
      { key: p.apiKey },
    );
    const before = fake.requests.length;
    const client = openai(p.apiKey);
    const outcomes: (number | "ok")[] = [];
    for (let i = 0; i < 4; i++) {
      try {
        await client.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: `call ${i}` }], metadata: { user_id: "u-42" } });
        outcomes.push("ok");
      } catch (err) {
        outcomes.push((err as InstanceType<typeof OpenAI.APIError>).status ?? -1);
      }
    }
    expect(outcomes).toEqual(["ok", "ok", 429, 429]);
    expect(fake.requests.length - before).toBe(2);

    const all = await listLogs(p.apiKey);
    expect(all.length).toBe(4);
    const refused = await listLogs(p.apiKey, { refused: true });
    expect(refused.length).toBe(2);
    for (const r of refused) {
      expect(r.refusal).toBe("rate_limit");
      expect(r.refusals).toBe(1);
      expect(r.statusCode).toBe(429);
      expect(r.costUsd).toBeNull();
      expect(r.provider).toBeNull();
      expect(r.attempts).toBeNull();
      expect(r.errorMessage).toContain("Rate limit reached");
    }
    expect((await listLogs(p.apiKey, { refusal: "rate_limit" })).length).toBe(2);
    expect((await listLogs(p.apiKey, { refused: false })).length).toBe(2);
    // The payload is kept as any log's is, and the tags: "why did user u-42 get a 429" has an answer.
    const detail = await trpcClient(t, p.apiKey).logs.get.query({ id: refused[0]!.id });
    expect(JSON.stringify(detail.reqPayload)).toContain("call ");
    expect((detail as unknown as { tags: Record<string, string> }).tags.user_id).toBe("u-42");

    const usage = await refusedUsage(p.apiKey);
    expect(usage).toMatchObject({ requests: 4, errors: 2, refused: 2 });
  });

  test("a model the key may not call, a scope it lacks, and the Messages protocol: each logged with its reason", async () => {
    const p = await freshProject("refused-model");
    const trpc = trpcClient(t, p.apiKey);
    const limited = await trpc.apiKeys.create.mutate({ name: "only-4o", allowedModels: ["openai:gpt-4o"] });
    const readOnly = await trpc.apiKeys.create.mutate({ name: "reader", scopes: ["read"] });
    const before = fake.requests.length;
    expect(await statusOf(() => openai(limited.apiKey).chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "x" }] }))).toBe(
      403,
    );
    expect(await statusOf(() => openai(readOnly.apiKey).chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "y" }] }))).toBe(
      403,
    );
    const anthropic = new Anthropic({ apiKey: limited.apiKey, baseURL: `${server.url}/api`, maxRetries: 0 });
    expect(
      await statusOf(() => anthropic.messages.create({ model: "claude-3-5-haiku-latest", max_tokens: 10, messages: [{ role: "user", content: "z" }] })),
    ).toBe(403);
    expect(fake.requests.length - before).toBe(0);

    const refused = await listLogs(p.apiKey, { refused: true });
    const byReason = refused.map((r) => `${r.refusal}:${r.api}:${r.statusCode}`).sort();
    expect(byReason).toEqual(["model:chat:403", "model:messages:403", "scope:chat:403"]);
    expect((await listLogs(p.apiKey, { refusal: "scope" })).length).toBe(1);
    expect((await refusedUsage(p.apiKey)).refused).toBe(3);
  });

  test("op-log-request: false keeps the refusal and its reason but not the payload", async () => {
    const p = await freshProject("refused-unlogged");
    const limited = await trpcClient(t, p.apiKey).apiKeys.create.mutate({ name: "only-4o", allowedModels: ["openai:gpt-4o"] });
    const res = await fetch(`${server.url}/api/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${limited.apiKey}`, "content-type": "application/json", "op-log-request": "false" },
      body: JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: "a secret prompt" }] }),
    });
    expect(res.status).toBe(403);
    const [log] = await listLogs(p.apiKey, { refused: true });
    expect(log?.refusal).toBe("model");
    const detail = await trpcClient(t, p.apiKey).logs.get.query({ id: log!.id });
    expect(JSON.stringify(detail.reqPayload ?? null)).not.toContain("a secret prompt");
  });

  test("a key hammering a limit: past the bound, the minute's refusals are one row counting them", async () => {
    const p = await freshProject("refused-hammer");
    await gqlData(
      t,
      `mutation ($input: SetLimitInput!) { setLimit(input: $input) { id } }`,
      { input: { scope: "project", requestsPerMinute: 1 } },
      { key: p.apiKey },
    );
    const call = () =>
      fetch(`${server.url}/api/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${p.apiKey}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: "again" }] }),
      });
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) statuses.push((await call()).status);
    expect(statuses.filter((s) => s === 200).length).toBe(1);
    expect(statuses.filter((s) => s === 429).length).toBe(11);
    // This minute: the first PER_MINUTE refusals one by one; the other 8 wait for the minute's end.
    expect((await listLogs(p.apiKey, { refused: true })).length).toBe(PER_MINUTE);

    // The next minute: its first refusal writes the last minute's folded row.
    now += 60_000;
    const next: number[] = [];
    for (let i = 0; i < 2; i++) next.push((await call()).status);
    expect(next).toEqual([200, 429]);
    const refused = await listLogs(p.apiKey, { refused: true });
    expect(refused.length).toBe(PER_MINUTE + 2);
    const folded = refused.filter((r) => (r.refusals ?? 0) > 1);
    expect(folded.length).toBe(1);
    expect(folded[0]!.refusals).toBe(11 - PER_MINUTE);
    expect(folded[0]!.errorMessage).toContain(`${11 - PER_MINUTE} more calls of this key refused in this minute`);
    const usage = await refusedUsage(p.apiKey);
    expect(usage.refused).toBe(12);
    expect(usage.costUsd).toBeGreaterThan(0);
    hammered = { projectId: p.projectId, key: p.apiKey, at: now };
  });

  test("closed hours: the rollups count the refusals as the logs do, and deleting the logs takes them away", async () => {
    const { projectId, key, at } = hammered!;
    const hour = 3_600_000;
    now = at + 3 * hour;
    const ctx = { ...systemCtx(t.deps, "test"), projectId };
    while ((await closeUsageHours(ctx, new Date(now))) > 0);
    const range = { from: new Date(Math.floor(at / hour) * hour - hour), to: new Date(Math.floor(now / hour) * hour), bucket: "hour" as const };
    const input = { ...range, groupBy: "none" as const, tagKey: null, classes: false };
    const rolled = await usageFromRollups(ctx, input);
    expect(rolled?.totals.refused).toBe(12);
    // Deleting the refused logs of closed hours subtracts them from the rollups.
    await trpcClient(t, key).logs.deleteByFilter.mutate({ filter: { refused: true } });
    const after = await usageFromRollups(ctx, input);
    expect(after?.totals.refused).toBe(0);
    expect(after?.totals.requests).toBe(2);
  });
});
