import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { LOG_COUNT_EXACT_LIMIT } from "../../src/core/limits";
import { createTestApp, type TestApp } from "../helpers/app";
import { gql } from "../helpers/gql";
import { seedLogs } from "../helpers/logs";
import { trpcClient, trpcFailure } from "../helpers/trpc";

// The logs verbs the console's Logs page reads: filters (status class, selections), counts, tag
// suggestions, bulk tags, JSONL export pages and the detail view.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

describe("LogFilter: statusClass and ids", () => {
  test("each status class, none (null or 0), and a selection of ids", async () => {
    const p = await t.createProject("classes");
    const logs = await seedLogs(
      t,
      [200, 201, 302, 404, 429, 500, 503, null, 0].map((statusCode, i) => ({ statusCode, completionId: `c${i}` })),
      p.projectId,
    );
    const trpc = trpcClient(t, p.apiKey);
    const ids = async (filter: object) => (await trpc.logs.list.query({ filter })).logs.map((l) => l.completionId).sort();
    expect(await ids({ statusClass: "2xx" })).toEqual(["c0", "c1"]);
    expect(await ids({ statusClass: "3xx" })).toEqual(["c2"]);
    expect(await ids({ statusClass: "4xx" })).toEqual(["c3", "c4"]);
    expect(await ids({ statusClass: "5xx" })).toEqual(["c5", "c6"]);
    expect(await ids({ statusClass: "none" })).toEqual(["c7", "c8"]);
    expect(await ids({ ids: [logs[0]!.id, logs[3]!.id] })).toEqual(["c0", "c3"]);
    expect(await ids({ ids: [logs[0]!.id, logs[3]!.id], statusClass: "4xx" })).toEqual(["c3"]);
    expect(await ids({ ids: [] })).toEqual([]);
    // Another project's ids select nothing.
    const mine = await seedLogs(t, [{ completionId: "mine" }]);
    expect(await ids({ ids: [mine[0]!.id] })).toEqual([]);

    const gqlIds = await gql(
      t,
      `query($f: LogFilterInput) { logs(filter: $f) { edges { node { completionId } } } }`,
      { f: { statusClass: "5xx" } },
      { key: p.apiKey },
    );
    expect(gqlIds.data.logs.edges.map((e: { node: { completionId: string } }) => e.node.completionId).sort()).toEqual(["c5", "c6"]);
    const sel = await gql(
      t,
      `query($f: LogFilterInput) { logs(filter: $f) { edges { node { completionId } } } }`,
      { f: { ids: [logs[1]!.id] } },
      { key: p.apiKey },
    );
    expect(sel.data.logs.edges.map((e: { node: { completionId: string } }) => e.node.completionId)).toEqual(["c1"]);
  });

  test("bad statusClass or too many ids is VALIDATION", async () => {
    const trpc = trpcClient(t);
    const bad = await trpcFailure(trpc.logs.list.query({ filter: { statusClass: "6xx" as never } }));
    expect(bad.data?.code).toBe("VALIDATION");
    const many = await trpcFailure(trpc.logs.list.query({ filter: { ids: Array.from({ length: 1001 }, (_, i) => `log_${i}`) } }));
    expect(many.data?.code).toBe("VALIDATION");
    expect(JSON.stringify(many.data?.issues)).toContain("at most 1000 log ids");
    const g = await gql(t, `query($f: LogFilterInput) { logs(filter: $f) { edges { node { id } } } }`, { f: { statusClass: "x" } });
    expect(g.errors[0].extensions.code).toBe("VALIDATION");
  });
});

describe("logs.count", () => {
  test("exact under the bound, for any filter; another project's logs never counted", async () => {
    const p = await t.createProject("count");
    await seedLogs(
      t,
      Array.from({ length: 30 }, (_, i) => ({ model: i % 3 === 0 ? "a" : "b", statusCode: i % 5 === 0 ? 500 : 200, tags: { k: `v${i % 2}` } })),
      p.projectId,
    );
    const trpc = trpcClient(t, p.apiKey);
    expect(await trpc.logs.count.query({})).toEqual({ count: 30, exact: true });
    expect(await trpc.logs.count.query({ filter: { model: "a" } })).toEqual({ count: 10, exact: true });
    expect(await trpc.logs.count.query({ filter: { statusClass: "5xx" } })).toEqual({ count: 6, exact: true });
    expect(await trpc.logs.count.query({ filter: { tags: [{ key: "k", equals: "v1" }] } })).toEqual({ count: 15, exact: true });
    expect(await trpc.logs.count.query({ filter: { search: "hello" } })).toEqual({ count: 30, exact: true });
    expect(await trpc.logs.count.query({ filter: { model: "nope" } })).toEqual({ count: 0, exact: true });
    const other = await t.createProject("count-other");
    expect(await trpcClient(t, other.apiKey).logs.count.query({})).toEqual({ count: 0, exact: true });
  });

  test("beyond the bound: an estimate, never below the bound", async () => {
    const p = await t.createProject("count-many");
    const n = LOG_COUNT_EXACT_LIMIT + 500;
    // Straight SQL: 10,500 rows through the report route would take a while.
    await t.deps.database.db.execute(sql`
      insert into request_logs (id, project_id, source, model, status_code, metadata)
      select 'log_' || lpad(to_hex(1700000000000 + g), 12, '0') || lpad(to_hex(g), 20, '0'), ${p.projectId}, 'report', 'bulk', 200,
             jsonb_build_object('g', (g % 2)::text)
      from generate_series(1, ${n}) g`);
    await t.deps.database.db.execute(sql`analyze request_logs`);
    const trpc = trpcClient(t, p.apiKey);
    const all = await trpc.logs.count.query({});
    expect(all.exact).toBe(false);
    expect(all.count).toBeGreaterThan(LOG_COUNT_EXACT_LIMIT);
    const few = await trpc.logs.count.query({ filter: { model: "bulk", tags: [{ key: "g", equals: "1" }] } });
    expect(few.count).toBe(n / 2);
    expect(few.exact).toBe(true);
  });

  test("a bad filter is VALIDATION", async () => {
    const err = await trpcFailure(trpcClient(t).logs.count.query({ filter: { from: "not a date" as never } }));
    expect(err.data?.code).toBe("VALIDATION");
  });
});

describe("logs.tagKeys and logs.tagValues", () => {
  test("keys and values by frequency, from this project only, with a prefix", async () => {
    const p = await t.createProject("tags");
    await seedLogs(
      t,
      Array.from({ length: 20 }, (_, i) => ({
        tags: { prompt_id: i < 12 ? "greet" : i < 18 ? "Goodbye" : "other", ...(i % 4 === 0 ? { user: `u${i}` } : {}), ...(i === 0 ? { rare: "x" } : {}) },
      })),
      p.projectId,
    );
    await seedLogs(t, [{ tags: { secret_key_of_another_project: "x" } }]);
    const trpc = trpcClient(t, p.apiKey);
    expect(await trpc.logs.tagKeys.query()).toEqual([
      { key: "prompt_id", count: 20 },
      { key: "user", count: 5 },
      { key: "rare", count: 1 },
    ]);
    expect(await trpc.logs.tagValues.query({ key: "prompt_id" })).toEqual([
      { value: "greet", count: 12 },
      { value: "Goodbye", count: 6 },
      { value: "other", count: 2 },
    ]);
    expect(await trpc.logs.tagValues.query({ key: "prompt_id", prefix: "g" })).toEqual([
      { value: "greet", count: 12 },
      { value: "Goodbye", count: 6 },
    ]);
    expect(await trpc.logs.tagValues.query({ key: "prompt_id", prefix: "%" })).toEqual([]);
    expect(await trpc.logs.tagValues.query({ key: "secret_key_of_another_project" })).toEqual([]);
    expect((await trpcFailure(trpc.logs.tagValues.query({ key: "" }))).data?.code).toBe("VALIDATION");
  });
});

describe("logs.facets", () => {
  test("models and providers of the newest logs by frequency, from this project only; how many calls of each model got an answer", async () => {
    const p = await t.createProject("facets");
    await seedLogs(
      t,
      Array.from({ length: 9 }, (_, i) => ({
        model: i < 5 ? "gpt-4o" : i < 8 ? "claude" : null,
        provider: i < 5 ? "openai" : i < 8 ? "anthropic" : null,
        statusCode: i === 0 || i === 5 ? 404 : 200,
      })),
      p.projectId,
    );
    await seedLogs(t, [{ model: "secret-model-of-another-project", provider: "elsewhere" }]);
    expect(await trpcClient(t, p.apiKey).logs.facets.query()).toEqual({
      models: [
        { value: "gpt-4o", count: 5, answered: 4 },
        { value: "claude", count: 3, answered: 2 },
      ],
      providers: [
        { value: "openai", count: 5 },
        { value: "anthropic", count: 3 },
      ],
    });
  });
});

describe("logs.setTags", () => {
  test("sets, replaces and removes tags on a filter or a selection; other projects untouched", async () => {
    const p = await t.createProject("set-tags");
    const logs = await seedLogs(
      t,
      Array.from({ length: 12 }, (_, i) => ({ model: i < 8 ? "a" : "b", tags: { keep: "1", drop: "x", env: i % 2 ? "dev" : "prod" } })),
      p.projectId,
    );
    const theirs = await seedLogs(t, [{ model: "a", tags: { drop: "x" } }]);
    const trpc = trpcClient(t, p.apiKey);
    expect(await trpc.logs.setTags.mutate({ filter: { model: "a" }, set: { reviewed: "yes", env: "staging" }, remove: ["drop"] })).toEqual({ updated: 8 });
    const all = (await trpc.logs.list.query({})).logs;
    for (const l of all) {
      if (l.model === "a") expect(l.tags).toEqual({ keep: "1", env: "staging", reviewed: "yes" });
      else expect(l.tags).toEqual({ keep: "1", drop: "x", env: expect.any(String) });
    }
    expect(await trpc.logs.setTags.mutate({ filter: { ids: [logs[9]!.id, logs[10]!.id, theirs[0]!.id] }, remove: ["keep"] })).toEqual({ updated: 2 });
    expect((await trpc.logs.count.query({ filter: { tags: [{ key: "keep", equals: "1" }] } })).count).toBe(10);
    const mine = (await trpcClient(t).logs.list.query({ filter: { ids: [theirs[0]!.id] } })).logs[0]!;
    expect(mine.tags).toEqual({ drop: "x" });
    // A filter on the very tag being changed still visits every matching log once.
    expect(await trpc.logs.setTags.mutate({ filter: { tags: [{ key: "keep", equals: "1" }] }, set: { keep: "2" } })).toEqual({ updated: 10 });
    expect((await trpc.logs.count.query({ filter: { tags: [{ key: "keep", equals: "2" }] } })).count).toBe(10);
  });

  test("more logs than one batch: every one updated", async () => {
    const p = await t.createProject("set-tags-many");
    await t.deps.database.db.execute(sql`
      insert into request_logs (id, project_id, source, model, status_code, metadata)
      select 'log_' || lpad(to_hex(1710000000000 + g), 12, '0') || lpad(to_hex(g), 20, '0'), ${p.projectId}, 'report', 'bulk', 200, '{}'::jsonb
      from generate_series(1, 2345) g`);
    const trpc = trpcClient(t, p.apiKey);
    expect(await trpc.logs.setTags.mutate({ filter: {}, set: { batch: "done" } })).toEqual({ updated: 2345 });
    expect((await trpc.logs.count.query({ filter: { tags: [{ key: "batch", equals: "done" }] } })).count).toBe(2345);
  });

  test("the tag cap and bad inputs are VALIDATION, and nothing changes", async () => {
    const p = await t.createProject("set-tags-cap");
    const full = Object.fromEntries(Array.from({ length: 49 }, (_, i) => [`k${i}`, "v"]));
    await seedLogs(t, [{ tags: full }, { tags: {} }], p.projectId);
    const trpc = trpcClient(t, p.apiKey);
    const over = await trpcFailure(trpc.logs.setTags.mutate({ filter: {}, set: { a: "1", b: "2" } }));
    expect(over.data?.code).toBe("VALIDATION");
    expect(over.message).toContain("more than 50 tags");
    expect((await trpc.logs.count.query({ filter: { tags: [{ key: "a", equals: "1" }] } })).count).toBe(0);
    // Replacing a key the log has, or adding one to reach exactly 50, is fine.
    expect(await trpc.logs.setTags.mutate({ filter: {}, set: { k0: "w", a: "1" } })).toEqual({ updated: 2 });
    const bad = async (input: object) => expect((await trpcFailure(trpc.logs.setTags.mutate(input as never))).data?.code).toBe("VALIDATION");
    await bad({ filter: {} });
    await bad({ filter: {}, set: {}, remove: [] });
    await bad({ filter: {}, set: { x: "1" }, remove: ["x"] });
    await bad({ filter: {}, set: { "": "1" } });
    await bad({ filter: {}, set: { x: "v".repeat(2049) } });
    await bad({ filter: {}, set: { x: 1 } });
    await bad({ set: { x: "1" } });
    await bad({ filter: { statusClass: "1xx" }, set: { x: "1" } });
  });
});

describe("logs.exportPage", () => {
  test("pages of JSON lines with columns and payloads, a selection or a filter, this project only", async () => {
    const p = await t.createProject("export");
    const logs = await seedLogs(
      t,
      Array.from({ length: 7 }, (_, i) => ({
        completionId: `e${i}`,
        model: i < 5 ? "a" : "b",
        tags: { i: String(i) },
        reqPayload: { model: "a", messages: [{ role: "user", content: `question ${i}` }] },
        respPayload: { id: `e${i}`, choices: [{ message: { role: "assistant", content: `answer ${i}` } }] },
      })),
      p.projectId,
    );
    await seedLogs(t, [{ model: "a", completionId: "not-mine" }]);
    const trpc = trpcClient(t, p.apiKey);
    const lines: string[] = [];
    let after: string | null = null;
    let pages = 0;
    for (;;) {
      const page: { lines: string[]; endCursor: string | null; hasNextPage: boolean } = await trpc.logs.exportPage.query({
        filter: { model: "a" },
        first: 2,
        after,
      });
      lines.push(...page.lines);
      pages++;
      if (!page.hasNextPage) break;
      after = page.endCursor;
    }
    expect(pages).toBe(3);
    const rows = lines.map((l) => JSON.parse(l));
    expect(rows.map((r) => r.completionId)).toEqual(["e4", "e3", "e2", "e1", "e0"]);
    expect(rows[0]).toMatchObject({
      id: logs[4]!.id,
      model: "a",
      statusCode: 200,
      metadata: { i: "4" },
      source: "report",
      reqPayload: { messages: [{ role: "user", content: "question 4" }] },
      respPayload: { id: "e4", choices: [{ message: { content: "answer 4" } }] },
    });
    expect(typeof rows[0].createdAt).toBe("string");
    const sel = await trpc.logs.exportPage.query({ filter: { ids: [logs[6]!.id, logs[0]!.id] } });
    expect(sel.lines.map((l) => JSON.parse(l).completionId)).toEqual(["e6", "e0"]);
    expect(sel.hasNextPage).toBe(false);
    expect((await trpcFailure(trpc.logs.exportPage.query({ first: 201 }))).data?.code).toBe("VALIDATION");
    expect((await trpcFailure(trpc.logs.exportPage.query({ after: "garbage" }))).data?.code).toBe("VALIDATION");
  });
});

describe("logs.get for the detail view", () => {
  test("dataset entries it fed, criteria results, Anthropic originals", async () => {
    const p = await t.createProject("detail");
    const trpc = trpcClient(t, p.apiKey);
    const results = {
      crit_a: { status: "success", score: 1, explanation: "good" },
      crit_b: { status: "error", errorCode: "UPSTREAM", errorMessage: "judge down" },
    };
    const [plain, judged, anthropic] = await seedLogs(
      t,
      [
        { completionId: "plain" },
        {
          completionId: "judged",
          respPayload: {
            id: "judged",
            choices: [
              { index: 1, message: { role: "assistant", content: "best" }, criteria_results: results },
              { index: 0, message: { role: "assistant", content: "worse" }, criteria_results: { crit_a: { status: "success", score: 0, explanation: "meh" } } },
            ],
          },
        },
        {
          source: "report-anthropic",
          completionId: "anth",
          reqPayloadOriginal: { model: "claude", system: "be brief", messages: [{ role: "user", content: "hi" }] },
          respPayloadOriginal: { id: "msg_1", content: [{ type: "text", text: "hello" }] },
        },
      ],
      p.projectId,
    );
    const one = await trpc.datasets.create.mutate({ name: "first" });
    const two = await trpc.datasets.create.mutate({ name: "second" });
    await trpc.datasets.importLogs.mutate({ datasetId: one.id, logIds: [plain!.id] });
    await trpc.datasets.importLogs.mutate({ datasetId: two.id, logIds: [plain!.id] });

    const a = await trpc.logs.get.query({ id: plain!.id });
    expect(a.datasetEntries.map((e) => [e.datasetId, e.datasetName]).sort()).toEqual(
      [
        [one.id, "first"],
        [two.id, "second"],
      ].sort(),
    );
    expect(a.datasetEntries.every((e) => e.entryId.length > 0)).toBe(true);
    expect(a.criteriaResults).toBeNull();
    expect(a.reqPayloadOriginal).toBeNull();
    expect(a.reqPayload).toMatchObject({ messages: [{ role: "user", content: "hi" }] });

    const b = await trpc.logs.get.query({ id: judged!.id });
    expect(b.datasetEntries).toEqual([]);
    expect(b.criteriaResults).toEqual([
      { index: 1, results },
      { index: 0, results: { crit_a: { status: "success", score: 0, explanation: "meh" } } },
    ]);

    const c = await trpc.logs.get.query({ id: anthropic!.id });
    expect(c.reqPayloadOriginal).toMatchObject({ system: "be brief" });
    expect(c.respPayloadOriginal).toMatchObject({ id: "msg_1" });

    // Another project sees none of it.
    expect((await trpcFailure(trpcClient(t).logs.get.query({ id: plain!.id }))).data?.httpStatus).toBe(404);
  });
});
