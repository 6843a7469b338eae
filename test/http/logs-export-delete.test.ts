import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { systemCtx } from "../../src/context";
import { CSV_COLUMNS, deleteLogs } from "../../src/domain/logs";
import { resultRows } from "../../src/domain/logs/internal";
import { createTestApp, type TestApp, type TestProject } from "../helpers/app";
import { gql } from "../helpers/gql";
import { seedLogs } from "../helpers/logs";
import { trpcClient, trpcFailure } from "../helpers/trpc";

// Export and delete by filter, on every transport: JSONL and CSV streamed from REST, deletion in
// batches (REST, tRPC, GraphQL) for a privacy request, strictly inside one project.

let t: TestApp;
let other: TestProject;
beforeAll(async () => {
  t = await createTestApp();
  other = await t.createProject("other");
}, 60_000);
afterAll(() => t.close());

const user = (u: string, i: number, extra: object = {}) => ({
  model: i % 2 ? "gpt-4o" : "claude",
  metadata: { user: u, n: String(i) },
  reqPayload: { model: "m", messages: [{ role: "user", content: `question ${i} from ${u}` }] },
  respPayload: { choices: [{ index: 0, message: { role: "assistant", content: `answer ${i}` } }] },
  ...extra,
});

/** A tiny RFC 4180 reader: quoted cells, doubled quotes, CRLF rows. */
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
  return rows;
}

const exportOf = async (params: Record<string, string>, key?: string) => {
  const res = await t.request("GET", `/api/v1/logs/export?${new URLSearchParams(params)}`, { key });
  return { status: res.status, type: res.headers.get("content-type"), text: await res.text() };
};

describe("export by filter", () => {
  test("JSONL: the matching logs with their payloads, newest first; another project's never", async () => {
    const mine = await seedLogs(t, [...Array.from({ length: 30 }, (_, i) => user("u42", i)), ...Array.from({ length: 20 }, (_, i) => user("u7", i))]);
    await seedLogs(
      t,
      Array.from({ length: 10 }, (_, i) => user("u42", i)),
      other.projectId,
    );
    const r = await exportOf({ filter: JSON.stringify({ metadata: [{ key: "user", equals: "u42" }] }) });
    expect(r.status).toBe(200);
    expect(r.type).toContain("application/x-ndjson");
    const lines = r.text
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    const expected = mine.filter((l) => l.metadata.user === "u42").map((l) => l.id);
    expect(lines.map((l) => l.id)).toEqual([...expected].reverse());
    expect(lines[0]).toMatchObject({
      metadata: { user: "u42" },
      reqPayload: { messages: [{ content: "question 29 from u42" }] },
      respPayload: { choices: [{ message: { content: "answer 29" } }] },
    });
    expect(lines[0].createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    // Combined filters, and the other project sees only its own.
    const claude = await exportOf({ filter: JSON.stringify({ model: "claude", metadata: [{ key: "user", equals: "u42" }] }) });
    expect(claude.text.trim().split("\n")).toHaveLength(15);
    const theirs = await exportOf({ filter: JSON.stringify({ metadata: [{ key: "user", equals: "u42" }] }) }, other.apiKey);
    expect(theirs.text.trim().split("\n")).toHaveLength(10);
  });

  test("CSV: a header and one row per log, quoted per RFC 4180, formulas neutralised", async () => {
    const p = await t.createProject("csv");
    await seedLogs(
      t,
      [user("u1", 1, { errorMessage: '=HYPERLINK("http://evil")', completionId: "a,b" }), user("u1", 2, { errorMessage: "line one\nline two" })],
      p.projectId,
    );
    const r = await exportOf({ format: "csv" }, p.apiKey);
    expect(r.type).toContain("text/csv");
    const rows = parseCsv(r.text);
    expect(rows[0]).toEqual([...CSV_COLUMNS]);
    expect(rows).toHaveLength(3);
    const at = (name: string, row: string[]) => row[CSV_COLUMNS.indexOf(name as never)];
    expect(at("error_message", rows[1]!)).toBe("line one\nline two");
    expect(at("error_message", rows[2]!)).toBe(`'=HYPERLINK("http://evil")`);
    expect(at("completion_id", rows[2]!)).toBe("a,b");
    expect(JSON.parse(at("metadata", rows[2]!)!)).toEqual({ user: "u1", n: "1" });
    expect(at("created_at", rows[1]!)).toMatch(/Z$/);
  });

  test("a bad filter is a 400 before anything streams; 5,000 logs stream in several chunks", async () => {
    expect((await exportOf({ filter: "{nope" })).status).toBe(400);
    const bad = await exportOf({ filter: JSON.stringify({ statusCode: "x" }) });
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.text).code).toBe("VALIDATION");
    const p = await t.createProject("many");
    await seedLogs(
      t,
      Array.from({ length: 5_000 }, (_, i) => user("bulk", i)),
      p.projectId,
    );
    const res = await t.request("GET", "/api/v1/logs/export", { key: p.apiKey });
    let chunks = 0;
    let text = "";
    const decoder = new TextDecoder();
    for await (const c of res.body!) {
      chunks++;
      text += decoder.decode(c);
    }
    expect(chunks).toBeGreaterThan(1);
    expect(text.trim().split("\n")).toHaveLength(5_000);
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
    const trpc = trpcClient(t, p.apiKey);
    const ds = await trpc.datasets.create.mutate({ name: "kept" });
    await trpc.datasets.importLogs.mutate({ datasetId: ds.id, logIds: [logs[0]!.id] });
    const filter = { metadata: [{ key: "user", equals: "u42" }] };
    expect(await trpc.logs.deleteByFilter.mutate({ filter, dryRun: true })).toEqual({ deleted: 25, done: true });
    // Batches of 10: three transactions.
    const ctx = { ...systemCtx(t.deps, "test"), projectId: p.projectId };
    expect(await deleteLogs(ctx, { filter }, { batchSize: 10 })).toEqual({ deleted: 25, done: true });
    const left = resultRows<{ user: string }>(
      await t.deps.database.db.execute(sql`select metadata ->> 'user' as user from request_logs where project_id = ${p.projectId}`),
    );
    expect(left.map((l) => l.user)).toEqual(["u1", "u1", "u1", "u1", "u1"]);
    const bodies = resultRows(await t.deps.database.db.execute(sql`select 1 from request_log_bodies where log_id = ${logs[0]!.id}`));
    expect(bodies).toHaveLength(0);
    // The dataset entry stays, without its source log.
    const { entries } = await trpc.datasets.listEntries.query({ datasetId: ds.id });
    expect(entries.map((e) => e.sourceLogId)).toEqual([null]);
    // The other project's logs with the same tag are untouched.
    expect((await trpcClient(t, other.apiKey).logs.count.query({ filter })).count).toBe(4 + 10);
  });

  test("REST and GraphQL; an empty filter is refused unless all: true", async () => {
    const p = await t.createProject("wipe");
    await seedLogs(
      t,
      Array.from({ length: 6 }, (_, i) => user(`u${i % 2}`, i)),
      p.projectId,
    );
    const refused = await t.request("POST", "/api/v1/logs/delete", { key: p.apiKey, body: {} });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { message: string }).message).toContain("all: true");
    expect((await trpcFailure(trpcClient(t, p.apiKey).logs.deleteByFilter.mutate({ filter: {} }))).data?.code).toBe("VALIDATION");
    const rest = await t.request("POST", "/api/v1/logs/delete", { key: p.apiKey, body: { filter: { metadata: [{ key: "user", equals: "u0" }] } } });
    expect(await rest.json()).toEqual({ deleted: 3, done: true });
    const g = await gql(t, `mutation { deleteLogs(all: true) { deleted done } }`, {}, { key: p.apiKey });
    expect(g.data.deleteLogs).toEqual({ deleted: 3, done: true });
    expect((await trpcClient(t, p.apiKey).logs.count.query({})).count).toBe(0);
  });
});
