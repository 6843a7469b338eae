import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { systemCtx } from "../../src/domain/context";
import { closeUsageHours } from "../../src/domain/logs";
import { setProviderKey } from "../../src/domain/projects";
import { createTestApp, type TestApp } from "../helpers/app";
import { createCriterion, createDataset } from "../helpers/factories";
import { startFakeOpenAI, type FakeUpstream } from "../helpers/fake-upstreams";
import { gql, gqlData } from "../helpers/gql";
import { trpcClient, trpcFailure } from "../helpers/trpc";
import type { ErrorBody } from "../helpers/rest";

// The loop made right for daily use: Hone's own calls kept apart from the application's, a log
// dated when its call was made, previews, one spelling per model, negative filters: on REST,
// GraphQL and tRPC alike.

const KEY = "sk-openai-daily-use-0001";
let t: TestApp;
let fake: FakeUpstream;

beforeAll(async () => {
  fake = startFakeOpenAI({ apiKey: KEY });
  t = await createTestApp({ env: { OPENAI_BASE_URL: `${fake.url}/v1` } });
  await setProviderKey({ ...systemCtx(t.deps, "test"), projectId: t.project.projectId }, { provider: "openai", apiKey: KEY });
});
afterAll(async () => {
  await fake.stop();
  await t.close();
});

const chat = (model: string, content: string, headers: Record<string, string> = {}, key = t.project.apiKey) =>
  t.request("POST", "/api/v1/chat/completions", {
    key,
    headers,
    body: {
      model,
      messages: [
        { role: "system", content: "be kind" },
        { role: "user", content },
      ],
    },
  });

type Log = {
  id: string;
  source: string;
  internalKind: string | null;
  model: string;
  inputPreview: string | null;
  outputPreview: string | null;
  requestedAt: string;
};
const LOGS = `query($filter: LogFilterInput) { logs(first: 100, filter: $filter) { edges { node { id source internalKind model inputPreview outputPreview requestedAt } } } }`;
async function logs(filter: Record<string, unknown> = {}, key?: string): Promise<Log[]> {
  await t.deps.logWriter.flush();
  const d = await gqlData(t, LOGS, { filter }, key ? { key } : {});
  return d.logs.edges.map((e: { node: Log }) => e.node);
}

describe("Hone's own calls", () => {
  test("a judged call: the application's log and its judges' logs are told apart on every transport", async () => {
    const p = await t.createProject("internal");
    await setProviderKey({ ...systemCtx(t.deps, "test"), projectId: p.projectId }, { provider: "openai", apiKey: KEY });
    const c = await createCriterion(t, { name: "kind", prompt: "Is it kind? {{output}}", key: p.apiKey });
    const r = await chat("gpt-4o-mini", "judge me", { "op-criteria": JSON.stringify([c.id]) }, p.apiKey);
    expect(r.status).toBe(200);
    const all = await logs({}, p.apiKey);
    expect(all.map((l) => [l.source, l.internalKind]).sort()).toEqual([
      ["gateway", null],
      ["internal", "judge"],
    ]);
    expect((await logs({ internal: false }, p.apiKey)).map((l) => l.source)).toEqual(["gateway"]);
    expect((await logs({ internal: true }, p.apiKey)).map((l) => l.internalKind)).toEqual(["judge"]);
    expect((await logs({ internalKind: "judge" }, p.apiKey)).length).toBe(1);
    // tRPC and the REST export take the same filter.
    const trpc = trpcClient(t, p.apiKey);
    expect((await trpc.logs.list.query({ filter: { internal: false } })).logs.map((l) => l.source)).toEqual(["gateway"]);
    const exported = await t.request("GET", `/api/v1/logs/export?filter=${encodeURIComponent(JSON.stringify({ internal: true }))}`, { key: p.apiKey });
    const lines = (await exported.text())
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.source, l.internalKind])).toEqual([["internal", "judge"]]);
    // Usage shows them as their own group (their cost is spend too, shown apart).
    const from = new Date(Date.now() - 3_600_000).toISOString();
    const to = new Date(Date.now() + 3_600_000).toISOString();
    const usage = await gqlData(
      t,
      `query($from: String!, $to: String!) { usage(from: $from, to: $to, bucket: "hour", groupBy: "source") { groups { group requests } } }`,
      { from, to },
      { key: p.apiKey },
    );
    expect(Object.fromEntries(usage.usage.groups.map((g: { group: string; requests: number }) => [g.group, g.requests]))).toEqual({
      gateway: 1,
      internal: 1,
    });
  });

  test("imports into a dataset leave them out unless asked for", async () => {
    const p = await t.createProject("import-internal");
    await setProviderKey({ ...systemCtx(t.deps, "test"), projectId: p.projectId }, { provider: "openai", apiKey: KEY });
    const c = await createCriterion(t, { name: "kind", prompt: "You are an evaluator. {{output}}", key: p.apiKey });
    expect((await chat("gpt-4o-mini", "train on me", { "op-criteria": JSON.stringify([c.id]) }, p.apiKey)).status).toBe(200);
    await t.deps.logWriter.flush();
    const ds = await createDataset(t, { name: "from logs", key: p.apiKey });
    const trpc = trpcClient(t, p.apiKey);
    expect(await trpc.datasets.importLogs.mutate({ datasetId: ds, filter: {} })).toMatchObject({ entriesCreated: 1 });
    const entries = (await trpc.datasets.listEntries.query({ datasetId: ds })).entries;
    expect(JSON.stringify(entries)).not.toContain("You are an evaluator");
    // Opt in: the filter asks for Hone's own calls.
    expect(await trpc.datasets.importLogs.mutate({ datasetId: ds, filter: { internal: true } })).toMatchObject({ entriesCreated: 1 });
  });
});

describe("a log is dated when its call was made", () => {
  test("a backfilled report sits at its time in the list, the time filters and usage; the drawer has both times", async () => {
    const p = await t.createProject("backfill");
    const day = 86_400_000;
    const made = Date.now() - 3 * day;
    const report = (requestedAt: number, id: string) =>
      t.request("POST", "/api/v1/report", {
        key: p.apiKey,
        body: {
          requestedAt,
          receivedAt: requestedAt + 800,
          statusCode: 200,
          reqPayload: { model: "gpt-4o-mini", messages: [{ role: "user", content: id }] },
          respPayload: { id, choices: [{ index: 0, message: { role: "assistant", content: "ok" } }], usage: { prompt_tokens: 10, completion_tokens: 2 } },
        },
      });
    expect((await report(Date.now() - 1000, "today")).status).toBe(200);
    expect((await report(made, "three-days-ago")).status).toBe(200);
    // Newest call first, whenever it was reported.
    const all = await logs({}, p.apiKey);
    expect(all.map((l) => l.inputPreview)).toEqual(["today", "three-days-ago"]);
    expect(new Date(all[1]!.requestedAt).getTime()).toBe(made);
    const onItsDay = { from: new Date(made - day / 2).toISOString(), to: new Date(made + day / 2).toISOString() };
    expect((await logs(onItsDay, p.apiKey)).map((l) => l.inputPreview)).toEqual(["three-days-ago"]);
    // Its day's usage, from the rollups once that hour is closed (summed again for the late log).
    await closeUsageHours(systemCtx(t.deps, "test"), new Date());
    const usage = await gqlData(
      t,
      `query($from: String!, $to: String!) { usage(from: $from, to: $to, bucket: "day") { series { start requests } } }`,
      { from: new Date(made - 5 * day).toISOString(), to: new Date(Date.now() + day).toISOString() },
      { key: p.apiKey },
    );
    const byDay = usage.usage.series.filter((s: { requests: number }) => s.requests > 0).map((s: { start: string }) => s.start.slice(0, 10));
    expect(byDay).toEqual([new Date(made).toISOString().slice(0, 10), new Date().toISOString().slice(0, 10)]);
    // The detail has when it was made and when it was logged.
    const detail = await trpcClient(t, p.apiKey).logs.get.query({ id: all[1]!.id });
    expect(new Date(detail.requestedAt!).getTime()).toBe(made);
    expect(new Date(detail.createdAt).getTime()).toBeGreaterThan(Date.now() - 60_000);
  });

  test("a report from the future or older than retention is a 400 that says why", async () => {
    const ahead = await t.request("POST", "/api/v1/report", { body: { requestedAt: Date.now() + 3_600_000, statusCode: 200 } });
    expect(ahead.status).toBe(400);
    expect(((await ahead.json()) as ErrorBody).message).toContain("ahead of the server's clock");
    const kept = await createTestApp({ env: { HONE_LOG_RETENTION_DAYS: "7" } });
    try {
      const old = await kept.request("POST", "/api/v1/report", { body: { requestedAt: Date.now() - 30 * 86_400_000, statusCode: 200 } });
      expect(old.status).toBe(400);
      expect(((await old.json()) as ErrorBody).message).toContain("HONE_LOG_RETENTION_DAYS");
      expect((await kept.request("POST", "/api/v1/report", { body: { requestedAt: Date.now() - 6 * 86_400_000, statusCode: 200 } })).status).toBe(200);
    } finally {
      await kept.close();
    }
  });
});

describe("previews, one spelling per model, negative filters", () => {
  test("previews of the last user message and the first answer, listed without reading bodies", async () => {
    const p = await t.createProject("previews");
    await setProviderKey({ ...systemCtx(t.deps, "test"), projectId: p.projectId }, { provider: "openai", apiKey: KEY });
    expect((await chat("gpt-4o-mini", "what is   the\ncapital of France?", {}, p.apiKey)).status).toBe(200);
    const [log] = await logs({}, p.apiKey);
    expect(log!.inputPreview).toBe("what is the capital of France?");
    expect(log!.outputPreview).toContain("capital of France");
  });

  test("gpt-4o-mini and openai:gpt-4o-mini are one model in logs, filters and usage", async () => {
    const p = await t.createProject("spelling");
    await setProviderKey({ ...systemCtx(t.deps, "test"), projectId: p.projectId }, { provider: "openai", apiKey: KEY });
    expect((await chat("gpt-4o-mini", "a", {}, p.apiKey)).status).toBe(200);
    expect((await chat("openai:gpt-4o-mini", "b", {}, p.apiKey)).status).toBe(200);
    expect((await logs({}, p.apiKey)).map((l) => l.model)).toEqual(["openai:gpt-4o-mini", "openai:gpt-4o-mini"]);
    expect(await logs({ model: "gpt-4o-mini" }, p.apiKey)).toHaveLength(2);
    expect(await logs({ model: "openai:gpt-4o-mini" }, p.apiKey)).toHaveLength(2);
    const facets = await trpcClient(t, p.apiKey).logs.facets.query();
    expect(facets.models.map((m) => m.value)).toEqual(["openai:gpt-4o-mini"]);
  });

  test("is not, tag is not, tag absent: on GraphQL, tRPC and the REST export", async () => {
    const p = await t.createProject("negative");
    const report = (model: string, status: number, tags: Record<string, string>, id: string) =>
      t.request("POST", "/api/v1/report", {
        key: p.apiKey,
        body: { statusCode: status, tags, reqPayload: { model, messages: [{ role: "user", content: id }] }, respPayload: { id } },
      });
    await report("gpt-4o", 200, { user: "u1", env: "prod" }, "a");
    await report("gpt-4o-mini", 500, { user: "u2" }, "b");
    await report("gpt-4o-mini", 200, { env: "dev" }, "c");
    const ids = async (filter: Record<string, unknown>) => (await logs(filter, p.apiKey)).map((l) => l.inputPreview).sort();
    expect(await ids({ not: { model: "gpt-4o" } })).toEqual(["b", "c"]);
    expect(await ids({ not: { statusClass: "5xx" } })).toEqual(["a", "c"]);
    expect(await ids({ metadataNot: [{ key: "user", equals: "u1" }] })).toEqual(["b", "c"]);
    expect(await ids({ tagsAbsent: ["user"] })).toEqual(["c"]);
    expect(await ids({ tagsAbsent: ["user"], not: { statusCode: 200 } })).toEqual([]);
    const trpc = trpcClient(t, p.apiKey);
    expect((await trpc.logs.list.query({ filter: { not: { model: "gpt-4o-mini" } } })).logs.map((l) => l.completionId)).toEqual(["a"]);
    const exported = await t.request("GET", `/api/v1/logs/export?filter=${encodeURIComponent(JSON.stringify({ tagsAbsent: ["env"] }))}`, { key: p.apiKey });
    expect(
      (await exported.text())
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l).completionId),
    ).toEqual(["b"]);
    // A bad value is a 400 naming it.
    const bad = await gql(t, LOGS, { filter: { not: { statusClass: "6xx" } } }, { key: p.apiKey });
    expect(bad.errors[0].extensions.code).toBe("VALIDATION");
    const err = await trpcFailure(trpc.logs.list.query({ filter: { internalKind: "gossip" as never } }));
    expect(err.data?.code).toBe("VALIDATION");
  });
});

describe("evaluations have names", () => {
  test("given, or made from the models and the dataset", async () => {
    const ds = await createDataset(t, {
      name: "golden",
      entries: [
        {
          split: "TEST",
          messages: [
            { role: "user", content: "q" },
            { role: "assistant", content: "a" },
          ],
        } as never,
      ],
    });
    const c = await createCriterion(t, { name: "ok", prompt: "{{output}}" });
    const named = await gqlData(
      t,
      `mutation($ds: ID!, $c: String!) { createEvaluation(input: {name: "nightly", datasetId: $ds, models: ["gpt-4o-mini"], criterionIds: [$c]}) { id name } }`,
      {
        ds,
        c: c.id,
      },
    );
    expect(named.createEvaluation.name).toBe("nightly");
    const unnamed = await gqlData(
      t,
      `mutation($ds: ID!, $c: String!) { createEvaluation(input: {datasetId: $ds, models: ["gpt-4o-mini", "dataset"], criterionIds: [$c]}) { name } }`,
      {
        ds,
        c: c.id,
      },
    );
    expect(unnamed.createEvaluation.name).toBe("gpt-4o-mini, dataset on golden");
  });
});
