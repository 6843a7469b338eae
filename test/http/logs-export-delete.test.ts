import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { systemCtx } from "../../src/domain/context";
import type { Database } from "../../src/db/client";
import { CSV_COLUMNS, deleteLogs, ensureLogPartitions, exportLogs } from "../../src/domain/logs";
import { timeSlices } from "../../src/domain/logs/list-logs";
import { resultRows } from "../../src/domain/logs/internal";
import { createTestApp, type TestApp, type TestProject } from "../helpers/app";
import { gql } from "../helpers/gql";
import { seedLogs } from "../helpers/logs";
import { trpcClient, trpcFailure } from "../helpers/trpc";

// Export and delete by filter, on every transport: JSONL and CSV streamed from REST (pages on
// tRPC and GraphQL), deletion in batches (REST, tRPC, GraphQL) for a privacy request, strictly
// inside one project.

let t: TestApp;
let other: TestProject;
beforeAll(async () => {
  t = await createTestApp();
  other = await t.createProject("other");
}, 60_000);
afterAll(() => t.close());

const user = (u: string, i: number, extra: object = {}) => ({
  model: i % 2 ? "gpt-4o" : "claude",
  tags: { user: u, n: String(i) },
  reqPayload: { model: "m", messages: [{ role: "user", content: `question ${i} from ${u}` }] },
  respPayload: { choices: [{ index: 0, message: { role: "assistant", content: `answer ${i}` } }] },
  ...extra,
});
/** The same filter in the domain's words (tRPC, the verbs) and in the REST wire's (metadata). */
const u42 = { tags: [{ key: "user", equals: "u42" }] };
const u42Wire = { metadata: [{ key: "user", equals: "u42" }] };

/** A tiny RFC 4180 reader: quoted cells (commas, CR, LF and doubled quotes inside), CRLF rows. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ",") {
      row.push(cell);
      cell = "";
    } else if (c === "\r" && text[i + 1] === "\n") {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = "";
      i++;
    } else cell += c;
  }
  if (cell !== "" || row.length) throw new Error("CSV does not end with CRLF");
  return rows;
}

const exportOf = async (params: Record<string, string>, key?: string) => {
  const res = await t.request("GET", `/api/v1/logs/export?${new URLSearchParams(params)}`, { key });
  return { status: res.status, type: res.headers.get("content-type"), disposition: res.headers.get("content-disposition"), text: await res.text() };
};
const jsonl = (text: string) =>
  text
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));
const countOf = async (projectId: string) =>
  Number(resultRows<{ n: number }>(await t.deps.database.db.execute(sql`select count(*)::int as n from request_logs where project_id = ${projectId}`))[0]!.n);
const ctxOf = (projectId: string) => ({ ...systemCtx(t.deps, "test"), projectId });

describe("export by filter", () => {
  test("JSONL: the matching logs with their payloads, newest first; another project's never", async () => {
    const mine = await seedLogs(t, [...Array.from({ length: 30 }, (_, i) => user("u42", i)), ...Array.from({ length: 20 }, (_, i) => user("u7", i))]);
    await seedLogs(
      t,
      Array.from({ length: 10 }, (_, i) => user("u42", i)),
      other.projectId,
    );
    const r = await exportOf({ filter: JSON.stringify(u42Wire) });
    expect(r.status).toBe(200);
    expect(r.type).toContain("application/x-ndjson");
    expect(r.disposition).toBe('attachment; filename="logs.jsonl"');
    const lines = jsonl(r.text);
    const expected = mine.filter((l) => l.tags.user === "u42").reverse();
    expect(lines.map((l) => l.id)).toEqual(expected.map((l) => l.id));
    // Every line carries its own log's bodies.
    for (const [i, line] of lines.entries()) {
      expect(line.metadata).toEqual(expected[i]!.tags);
      expect(line.reqPayload).toEqual(expected[i]!.reqPayload);
      expect(line.respPayload).toEqual(expected[i]!.respPayload);
    }
    expect(lines[0].createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    // Combined filters, and the other project sees only its own.
    const claude = await exportOf({ filter: JSON.stringify({ model: "claude", ...u42Wire }) });
    expect(jsonl(claude.text)).toHaveLength(15);
    const theirs = await exportOf({ filter: JSON.stringify(u42Wire) }, other.apiKey);
    expect(jsonl(theirs.text)).toHaveLength(10);
    expect(jsonl(theirs.text).every((l) => !mine.some((m) => m.id === l.id))).toBe(true);
  });

  test("a JSONL line is what the page-based exports (tRPC logs.exportPage, GraphQL logExportPage) write", async () => {
    const p = await t.createProject("shapes");
    const at = new Date(Date.now() - 60_000);
    await seedLogs(
      t,
      [
        user("s", 1, {
          at,
          source: "gateway",
          provider: "openai",
          completionId: "chatcmpl-1",
          statusCode: 200,
          durationMs: 812,
          inputTokens: 12,
          outputTokens: 34,
          costUsd: 0.000123,
          cacheHit: true,
        }),
        user("s", 2, {
          at: new Date(at.getTime() + 1),
          source: "report-anthropic",
          statusCode: 529,
          errorMessage: "overloaded",
          reqPayloadOriginal: { model: "claude", system: "terse", messages: [] },
          respPayloadOriginal: { type: "error" },
        }),
        user("s", 3, { at: new Date(at.getTime() + 2), requestedAt: null, receivedAt: null, model: null, reqPayload: null, respPayload: null }),
      ],
      p.projectId,
    );
    const streamed = jsonl((await exportOf({}, p.apiKey)).text);
    expect(streamed).toHaveLength(3);
    const trpcPage = await trpcClient(t, p.apiKey).logs.exportPage.query({});
    expect(streamed).toEqual(trpcPage.lines.map((l) => JSON.parse(l)));
    // Same keys in the same order, not only the same values.
    expect(streamed.map((l) => Object.keys(l))).toEqual(trpcPage.lines.map((l) => Object.keys(JSON.parse(l))));
    expect(streamed[1]).toMatchObject({ source: "report-anthropic", reqPayloadOriginal: { system: "terse" }, respPayloadOriginal: { type: "error" } });
    expect(streamed[2]).toMatchObject({ source: "gateway", costUsd: 0.000123, cacheHit: true, durationMs: 812 });
    expect(streamed[0]).toMatchObject({ model: null, requestedAt: null, reqPayload: null, respPayload: null });
    // GraphQL pages the same lines.
    const g = await gql(t, `{ logExportPage(first: 2) { lines endCursor hasNextPage } }`, {}, { key: p.apiKey });
    expect(g.data.logExportPage.hasNextPage).toBe(true);
    const rest = await gql(
      t,
      `query($after: String) { logExportPage(after: $after) { lines hasNextPage } }`,
      { after: g.data.logExportPage.endCursor },
      { key: p.apiKey },
    );
    expect(rest.data.logExportPage.hasNextPage).toBe(false);
    expect([...g.data.logExportPage.lines, ...rest.data.logExportPage.lines].map((l: string) => JSON.parse(l))).toEqual(streamed);
    const filtered = await gql(t, `{ logExportPage(filter: {source: "report-anthropic"}) { lines } }`, {}, { key: p.apiKey });
    expect(filtered.data.logExportPage.lines.map((l: string) => JSON.parse(l))).toEqual([streamed[1]]);
    const tooMany = await gql(t, `{ logExportPage(first: 201) { lines } }`, {}, { key: p.apiKey });
    expect(tooMany.errors?.[0]?.extensions?.code).toBe("VALIDATION");
  });

  test("CSV: a header and one row per matching log, quoted per RFC 4180, formulas neutralised", async () => {
    const p = await t.createProject("csv");
    const logs = await seedLogs(
      t,
      [
        user("u1", 1, { errorMessage: '=HYPERLINK("http://evil")', completionId: "a,b", provider: "+cmd", durationMs: 5, costUsd: 0.5, cacheHit: true }),
        user("u1", 2, { errorMessage: "line one\nline two", completionId: "-2+3", model: "@SUM(A1)" }),
        user("u2", 3, { errorMessage: "\tTAB", model: "plain" }),
        user("u1", 4, { tags: { user: "u1", note: '=1+1, "quoted"' } }),
      ],
      p.projectId,
    );
    await seedLogs(t, [user("u1", 9)], other.projectId);
    const r = await exportOf({ format: "csv", filter: JSON.stringify({ metadata: [{ key: "user", equals: "u1" }] }) }, p.apiKey);
    expect(r.type).toContain("text/csv");
    expect(r.disposition).toBe('attachment; filename="logs.csv"');
    const rows = parseCsv(r.text);
    expect(rows[0]).toEqual([...CSV_COLUMNS]);
    expect(rows).toHaveLength(4);
    expect(rows.every((row) => row.length === CSV_COLUMNS.length)).toBe(true);
    const col = (name: (typeof CSV_COLUMNS)[number], row: string[]) => row[CSV_COLUMNS.indexOf(name)]!;
    // Newest first: exactly u1's logs of this project.
    expect(rows.slice(1).map((row) => col("id", row))).toEqual([logs[3]!.id, logs[1]!.id, logs[0]!.id]);
    const [fourth, second, first] = rows.slice(1) as [string[], string[], string[]];
    expect(col("error_message", second)).toBe("line one\nline two");
    expect(col("completion_id", second)).toBe("'-2+3");
    expect(col("model", second)).toBe("'@SUM(A1)");
    expect(col("error_message", first)).toBe(`'=HYPERLINK("http://evil")`);
    expect(col("provider", first)).toBe("'+cmd");
    expect(col("completion_id", first)).toBe("a,b");
    expect([col("source", first), col("status_code", first), col("duration_ms", first), col("cost_usd", first), col("cache_hit", first)]).toEqual([
      "report",
      "200",
      "5",
      "0.5",
      "true",
    ]);
    expect([col("input_tokens", first), col("output_tokens", first), col("cache_hit", second)]).toEqual(["", "", "false"]);
    expect(JSON.parse(col("metadata", first))).toEqual({ user: "u1", n: "1" });
    // A JSON cell starts with "{": a formula inside it is only text.
    expect(JSON.parse(col("metadata", fourth))).toEqual({ user: "u1", note: '=1+1, "quoted"' });
    expect(new Date(col("created_at", first)).toISOString()).toBe(col("created_at", first));
    // Tab-led cells are neutralised too.
    const all = parseCsv((await exportOf({ format: "csv", filter: JSON.stringify({ model: "plain" }) }, p.apiKey)).text);
    expect(col("error_message", all[1]!)).toBe("'\tTAB");
  });

  test("a bad filter or format is a 400 before anything streams", async () => {
    expect((await exportOf({ filter: "{nope" })).status).toBe(400);
    const bad = await exportOf({ filter: JSON.stringify({ statusCode: "x" }) });
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.text).code).toBe("VALIDATION");
    expect((await exportOf({ format: "xml" })).status).toBe(400);
    expect((await exportOf({}, "hone_wrong")).status).toBe(401);
  });
});

describe("streaming 20,000 logs", () => {
  let many: TestProject;
  beforeAll(async () => {
    many = await t.createProject("many");
    await seedLogs(
      t,
      Array.from({ length: 20_000 }, (_, i) => ({ tags: { i: String(i) } })),
      many.projectId,
    );
  }, 60_000);

  test("the body arrives as many chunks (a page each), every log once", async () => {
    const res = await t.request("GET", "/api/v1/logs/export", { key: many.apiKey });
    let chunks = 0;
    let text = "";
    const decoder = new TextDecoder();
    for await (const c of res.body!) {
      chunks++;
      text += decoder.decode(c, { stream: true });
    }
    expect(chunks).toBeGreaterThan(5);
    const lines = jsonl(text);
    expect(lines).toHaveLength(20_000);
    expect(new Set(lines.map((l) => l.id)).size).toBe(20_000);
    expect(lines[0].metadata.i).toBe("19999");
    const csv = await t.request("GET", "/api/v1/logs/export?format=csv", { key: many.apiKey });
    expect(parseCsv(await csv.text())).toHaveLength(20_001);
  }, 60_000);

  describe("pulled, and failing visibly", () => {
    // A second app on the same database whose statements can be counted and made to fail.
    let t2: TestApp;
    let executes = 0;
    let failing = false;
    beforeAll(async () => {
      const real = t.deps.database;
      const db = new Proxy(real.db, {
        get(target, prop) {
          if (prop === "execute")
            return (q: unknown) => {
              executes++;
              return failing ? Promise.reject(new Error("connection lost (injected)")) : target.execute(q as never);
            };
          const v = Reflect.get(target, prop, target);
          return typeof v === "function" ? v.bind(target) : v;
        },
      });
      const database: Database = { kind: real.kind, url: real.url, db: db as Database["db"], close: async () => {} };
      t2 = await createTestApp({ deps: { database } });
    }, 60_000);
    afterAll(() => t2.close());

    test("JSONL: pages are read as the client reads; a failure ends the file with an error line", async () => {
      failing = false;
      const res = await t2.request("GET", "/api/v1/logs/export", { key: many.apiKey });
      expect(res.status).toBe(200);
      const reader = res.body!.getReader();
      const decoder = new TextDecoder();
      let text = decoder.decode((await reader.read()).value!, { stream: true });
      const before = executes;
      // Time must pass to show that reads stop while the client does not read (nothing to wait for).
      await Bun.sleep(500);
      // Backpressure: a client that stops reading stops the reads: the page the stream queues and
      // the one its reader buffers are read ahead (each 2,000 logs or 4 MiB at most, two statements:
      // the ids with their sizes, then the lines), no more.
      expect(executes - before).toBeLessThanOrEqual(4);
      failing = true;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
      }
      failing = false;
      const lines = jsonl(text);
      const last = lines.at(-1);
      expect(last).toEqual({ error: { message: expect.stringContaining("stopped early") } });
      const logs = lines.slice(0, -1);
      expect(logs.length).toBeGreaterThanOrEqual(1_000);
      expect(logs.length).toBeLessThan(20_000);
      expect(logs.every((l) => typeof l.id === "string" && l.metadata)).toBe(true);
      // The server log says what happened; the client never sees the driver's message.
      expect(text).not.toContain("injected");
      expect(t2.logLines.some((l) => l.includes("log export failed mid-stream") && l.includes("injected"))).toBe(true);
    }, 60_000);

    test("CSV: the file ends with a comment line saying so", async () => {
      failing = false;
      const res = await t2.request("GET", "/api/v1/logs/export?format=csv", { key: many.apiKey });
      const reader = res.body!.getReader();
      const decoder = new TextDecoder();
      let text = decoder.decode((await reader.read()).value!, { stream: true });
      failing = true;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
      }
      failing = false;
      expect(text.startsWith(`${CSV_COLUMNS.join(",")}\r\n`)).toBe(true);
      expect(text.endsWith("\r\n")).toBe(true);
      expect(text.trimEnd().split("\r\n").at(-1)).toMatch(/^# error: the export stopped early/);
    }, 60_000);
  });
});

describe("delete by filter", () => {
  test("deletes only the matching logs of the project, in batches, with a count; dryRun counts", async () => {
    const p = await t.createProject("privacy");
    const logs = await seedLogs(
      t,
      [...Array.from({ length: 25 }, (_, i) => user("u42", i)), ...Array.from({ length: 5 }, (_, i) => user("u1", i))],
      p.projectId,
    );
    await seedLogs(
      t,
      Array.from({ length: 4 }, (_, i) => user("u42", i)),
      other.projectId,
    );
    const otherBefore = await countOf(other.projectId);
    const trpc = trpcClient(t, p.apiKey);
    const ds = await trpc.datasets.create.mutate({ name: "kept" });
    await trpc.datasets.importLogs.mutate({ datasetId: ds.id, logIds: [logs[0]!.id, logs[29]!.id] });
    expect(await trpc.logs.deleteByFilter.mutate({ filter: u42, dryRun: true })).toEqual({ deleted: 25, done: true });
    expect(await countOf(p.projectId)).toBe(30); // dryRun deleted nothing
    // Batches of 10: three transactions.
    expect(await deleteLogs(ctxOf(p.projectId), { filter: u42 }, { batchSize: 10 })).toEqual({ deleted: 25, done: true });
    const left = resultRows<{ user: string }>(
      await t.deps.database.db.execute(sql`select metadata ->> 'user' as user from request_logs where project_id = ${p.projectId}`),
    );
    expect(left.map((l) => l.user)).toEqual(["u1", "u1", "u1", "u1", "u1"]);
    const ids = sql.join(
      logs.slice(0, 25).map((l) => sql`${l.id}`),
      sql`, `,
    );
    expect(resultRows(await t.deps.database.db.execute(sql`select 1 from request_log_bodies where log_id in (${ids})`))).toHaveLength(0);
    // The dataset entries stay; the one from a deleted log loses its source, the other keeps it.
    const { entries } = await trpc.datasets.listEntries.query({ datasetId: ds.id });
    expect(entries.map((e) => e.sourceLogId).sort()).toEqual([logs[29]!.id, null].sort());
    // Gone from the export; the other project's logs with the same tag are untouched.
    expect((await exportOf({ filter: JSON.stringify(u42Wire) }, p.apiKey)).text).toBe("");
    expect(await countOf(other.projectId)).toBe(otherBefore);
    expect(jsonl((await exportOf({ filter: JSON.stringify(u42Wire) }, other.apiKey)).text).length).toBeGreaterThanOrEqual(4);
    // Nothing left to delete: a count of 0, done.
    expect(await trpc.logs.deleteByFilter.mutate({ filter: u42 })).toEqual({ deleted: 0, done: true });
  });

  test("past its time budget a call answers done: false; calling again goes on", async () => {
    const p = await t.createProject("budget");
    await seedLogs(
      t,
      Array.from({ length: 25 }, (_, i) => user("u42", i)),
      p.projectId,
    );
    const ctx = ctxOf(p.projectId);
    // One worker: with two (Postgres), the other may have walked the older days meanwhile (below).
    const opts = { batchSize: 10, budgetMs: 0, workers: 1 };
    expect(await deleteLogs(ctx, { filter: u42 }, opts)).toEqual({ deleted: 10, done: false });
    expect(await countOf(p.projectId)).toBe(15);
    expect(await deleteLogs(ctx, { filter: u42 }, opts)).toEqual({ deleted: 10, done: false });
    // The last 5, with older days still to look at when the budget ran out: the batch stops there
    // and answers done: false, and the next call finds nothing more. A call that answers done:
    // false has always deleted something.
    expect(await deleteLogs(ctx, { filter: u42 }, opts)).toEqual({ deleted: 5, done: false });
    expect(await countOf(p.projectId)).toBe(0);
    expect(await deleteLogs(ctx, { filter: u42 }, opts)).toEqual({ deleted: 0, done: true });
    expect(await countOf(p.projectId)).toBe(0);
  });

  test("day partitions: export and delete walk them newest first, one call through every day", async () => {
    const p = await t.createProject("days");
    const DAY = 86_400_000;
    await ensureLogPartitions(systemCtx(t.deps, "test"), new Date(), { since: new Date(Date.now() - 6 * DAY) });
    // The cached list of day slices forgotten, so this ctx sees the partitions just made.
    const ctx = { ...ctxOf(p.projectId), deps: { ...t.deps, caches: { ...t.deps.caches, logSlices: null } } };
    expect((await timeSlices(ctx.deps.database.db, ctx.deps)).length).toBeGreaterThan(6);
    const logs = await seedLogs(
      t,
      [4, 3, 2, 1, 0].map((d) => user(d === 2 ? "u1" : "u42", d, { at: new Date(Date.now() - d * DAY - 1_000) })),
      p.projectId,
    );
    let text = "";
    for await (const chunk of exportLogs(ctx, { filter: u42 })) text += chunk;
    expect(jsonl(text).map((l) => l.id)).toEqual([logs[4]!.id, logs[3]!.id, logs[1]!.id, logs[0]!.id]);
    expect(await deleteLogs(ctx, { filter: u42 }, { batchSize: 1 })).toEqual({ deleted: 4, done: true });
    expect(await countOf(p.projectId)).toBe(1);
  });

  test("two workers (on Postgres) take the days in turn: every day walked once, every call past its budget having deleted", async () => {
    const p = await t.createProject("two workers");
    const DAY = 86_400_000;
    await ensureLogPartitions(systemCtx(t.deps, "test"), new Date(), { since: new Date(Date.now() - 8 * DAY) });
    const ctx = { ...ctxOf(p.projectId), deps: { ...t.deps, caches: { ...t.deps.caches, logSlices: null } } };
    const days = [6, 5, 4, 3, 2, 1, 0];
    const seed = () =>
      seedLogs(
        t,
        days.flatMap((d) => [
          ...Array.from({ length: 3 }, (_, i) => user("u42", i, { at: new Date(Date.now() - d * DAY - 10_000 - i * 1_000) })),
          user("u1", d, { at: new Date(Date.now() - d * DAY - 5_000) }),
        ]),
        p.projectId,
      );
    await seed();
    // One call with room to finish: every day's matches, whichever worker walked it.
    expect(await deleteLogs(ctx, { filter: u42 }, { batchSize: 2, workers: 2 })).toEqual({ deleted: 21, done: true });
    expect(await countOf(p.projectId)).toBe(7);
    // No time budget at all: each call deletes a batch or two and says whether it is done.
    const second = (await seed()).filter((_, i) => i % 4 !== 3); // the u42 logs (every fourth is u1)
    let deleted = 0;
    for (let calls = 0; calls < 30; calls++) {
      const r = await deleteLogs(ctx, { filter: u42 }, { batchSize: 2, budgetMs: 0, workers: 2 });
      if (!r.done) expect(r.deleted).toBeGreaterThan(0);
      deleted += r.deleted;
      if (r.done) break;
    }
    expect(deleted).toBe(21);
    const left = resultRows<{ user: string }>(
      await t.deps.database.db.execute(sql`select metadata ->> 'user' as user from request_logs where project_id = ${p.projectId}`),
    );
    expect(left.map((l) => l.user)).toEqual(Array(14).fill("u1"));
    const gone = sql.join(
      second.map((l) => sql`${l.id}`),
      sql`, `,
    );
    expect(second).toHaveLength(21);
    expect(resultRows(await t.deps.database.db.execute(sql`select 1 from request_log_bodies where log_id in (${gone})`))).toHaveLength(0);
  });

  test("REST and GraphQL; an empty filter is refused unless all: true", async () => {
    const p = await t.createProject("wipe");
    await seedLogs(
      t,
      Array.from({ length: 6 }, (_, i) => user(`u${i % 2}`, i)),
      p.projectId,
    );
    const otherBefore = await countOf(other.projectId);
    for (const body of [{}, { filter: {} }, { filter: null }, { filter: { metadata: [] } }, { filter: { model: null } }, { all: false }]) {
      const refused = await t.request("POST", "/api/v1/logs/delete", { key: p.apiKey, body });
      expect(refused.status).toBe(400);
      const err = (await refused.json()) as { message: string; code: string };
      expect(err.code).toBe("VALIDATION");
      expect(err.message).toContain("all: true");
    }
    expect((await trpcFailure(trpcClient(t, p.apiKey).logs.deleteByFilter.mutate({ filter: {} }))).data?.code).toBe("VALIDATION");
    const gEmpty = await gql(t, `mutation { deleteLogs(filter: {}) { deleted done } }`, {}, { key: p.apiKey });
    expect(gEmpty.errors?.[0]?.extensions?.code).toBe("VALIDATION");
    expect(await countOf(p.projectId)).toBe(6);
    // An empty selection of ids is a filter that matches nothing.
    const none = await t.request("POST", "/api/v1/logs/delete", { key: p.apiKey, body: { filter: { ids: [] } } });
    expect(await none.json()).toEqual({ deleted: 0, done: true });
    const dry = await t.request("POST", "/api/v1/logs/delete", {
      key: p.apiKey,
      body: { filter: { metadata: [{ key: "user", equals: "u0" }] }, dryRun: true },
    });
    expect(await dry.json()).toEqual({ deleted: 3, done: true });
    const rest = await t.request("POST", "/api/v1/logs/delete", { key: p.apiKey, body: { filter: { metadata: [{ key: "user", equals: "u0" }] } } });
    expect(rest.status).toBe(200);
    expect(await rest.json()).toEqual({ deleted: 3, done: true });
    const gDry = await gql(t, `mutation { deleteLogs(filter: {model: "gpt-4o"}, dryRun: true) { deleted done } }`, {}, { key: p.apiKey });
    expect(gDry.data.deleteLogs).toEqual({ deleted: 3, done: true });
    const g = await gql(t, `mutation { deleteLogs(all: true) { deleted done } }`, {}, { key: p.apiKey });
    expect(g.data.deleteLogs).toEqual({ deleted: 3, done: true });
    expect(await countOf(p.projectId)).toBe(0);
    // all: true means all of this project's logs, never another's.
    expect(await countOf(other.projectId)).toBe(otherBefore);
    expect((await t.request("POST", "/api/v1/logs/delete", { key: p.apiKey, body: { filter: { statusCode: "x" } } })).status).toBe(400);
  });
});
