import { afterAll, beforeAll, expect, test } from "bun:test";
import { systemCtx } from "../../src/domain/context";
import { createDeps } from "../../src/compose";
import { insertLogRows, logRow, type NewRequestLog } from "../../src/domain/logs";
import { sanitizeJsonText } from "../../src/domain/logs/store/sanitize-json-text";
import { newId } from "../../src/lib/ids";
import { createRowWriter } from "../../src/log-writer/log-writer";
import { createLogger } from "../../src/core/logger";
import { createTestDatabase, type TestDatabase } from "../helpers/db";
import { testConfig } from "../helpers/app";

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db.drop());

const PROJECT = "proj_isolation";
const record = (id: string): NewRequestLog => ({
  id,
  projectId: PROJECT,
  source: "gateway",
  provider: "openai",
  model: "gpt-4o-mini",
  completionId: `chatcmpl-${id}`,
  statusCode: 200,
  errorMessage: null,
  requestedAt: new Date(),
  receivedAt: new Date(),
  durationMs: 12,
  inputTokens: 10,
  outputTokens: 5,
  costUsd: 0.0001,
  cacheHit: false,
  tags: { env: "test" },
  reqPayload: { model: "gpt-4o-mini", messages: [{ role: "user", content: "hello\nthere" }] },
  respPayload: { id: `chatcmpl-${id}`, choices: [{ index: 0, message: { role: "assistant", content: "hi" } }] },
});

// Rows the database rejects although they got past everything before the writer: a NUL (22P05),
// an integer the column cannot hold (22003), a lone surrogate (22P02). They are written as raw rows,
// below logRow's sanitising, as a bug or a future field could produce them.
const badRow = (id: string, kind: number): string => {
  const row = logRow(record(id));
  if (kind % 3 === 0) return row.replace('"hello\\nthere"', '"hello\\u0000"');
  if (kind % 3 === 1) return row.replace('"status_code":200', '"status_code":99999999999');
  return row.replace('"content":"hi"', '"content":"\\ud800"');
};

test("logRow sanitises NUL and lone surrogates and clamps integer columns, cheaply", () => {
  const r = { ...record("log_x"), model: "a\u0000b", inputTokens: 1e12, reqPayload: { t: "x\ud800y", ok: "😀" } };
  const row = JSON.parse(logRow(r));
  expect(row.model).toBe("a\uFFFDb");
  expect(row.input_tokens).toBe(2_147_483_647);
  expect(row.req_payload).toEqual({ t: "x\uFFFDy", ok: "😀" });
  // Escaped pairs (Python clients escape everything) stay whole; an escaped backslash is no escape.
  expect(sanitizeJsonText(String.raw`["\ud83d\ude00","\\u0000","\ud83d\ud83d\ude00","\udc00"]`)).toBe(
    String.raw`["\ud83d\ude00","\\u0000","\ufffd\ud83d\ude00","\ufffd"]`,
  );
  // A 10 kB row is cleaned in well under a millisecond.
  const big = logRow({
    ...record("log_big"),
    reqPayload: { messages: Array.from({ length: 40 }, (_, i) => ({ role: "user", content: `line ${i}\n"${"lorem ".repeat(35)}"` })) },
  });
  expect(big.length).toBeGreaterThan(10_000);
  const start = performance.now();
  for (let i = 0; i < 1_000; i++) sanitizeJsonText(big);
  expect((performance.now() - start) / 1_000).toBeLessThan(0.1);
});

test("one bad row a second in steady traffic: no good log lost, none delayed, no sleeping", async () => {
  const lines: string[] = [];
  const logger = createLogger("info", (l) => lines.push(l));
  const sleeps: number[] = [];
  const enqueuedAt = new Map<string, number>();
  const committedAt = new Map<string, number>();
  const idOf = (row: string) => row.slice(7, row.indexOf('"', 7));
  const flushMs = 20;
  const writer = createRowWriter(
    {
      logger,
      insertRows: async (rows) => {
        await insertLogRows(db.database.db, rows);
        const now = performance.now();
        for (const r of rows) committedAt.set(idOf(r), now);
      },
      sleep: async (ms) => {
        sleeps.push(ms);
        await Bun.sleep(ms);
      },
    },
    { maxDelayMs: flushMs },
  );
  const good: string[] = [];
  const bad: string[] = [];
  /** Bad rows whose fault is in a payload: stored without their payloads, the call still logged. */
  const badPayload = new Set<string>();
  const started = performance.now();
  let kind = 0;
  let nextBad = started + 100;
  while (performance.now() - started < 3_200) {
    const id = newId("log");
    good.push(id);
    enqueuedAt.set(id, performance.now());
    writer.enqueue(id, logRow(record(id)));
    if (performance.now() >= nextBad) {
      const b = newId("log");
      bad.push(b);
      if (kind % 3 !== 1) badPayload.add(b);
      writer.enqueue(b, badRow(b, kind++));
      nextBad += 1_000;
    }
    await Bun.sleep(5);
  }
  await writer.flush();

  expect(bad.length).toBeGreaterThanOrEqual(3);
  const stored = await db.database.db.query.requestLogs.findMany({ where: { projectId: PROJECT }, columns: { id: true, warning: true, statusCode: true } });
  const storedIds = new Set(stored.map((r) => r.id));
  expect(good.filter((id) => !storedIds.has(id))).toEqual([]);
  // A row refused for a payload is stored without it (status, tokens, tags kept, a warning saying
  // so); a row refused for a column of its own (a status no integer holds) is dropped.
  expect(bad.filter((id) => storedIds.has(id)).sort()).toEqual([...badPayload].sort());
  for (const r of stored.filter((x) => badPayload.has(x.id))) {
    expect(r.statusCode).toBe(200);
    expect(r.warning).toContain("the database refused the payloads");
  }
  const bodies = await db.database.db.query.requestLogBodies.findMany({ where: { logId: { in: [...badPayload] } } });
  expect(bodies.length).toBe(badPayload.size);
  for (const b of bodies) expect(b.reqPayload).toEqual({ hone_payload_not_stored: expect.stringContaining("the database refused the payloads") });
  expect(sleeps).toEqual([]);
  // Every good log committed within the flush delay plus a margin for the few isolating inserts
  // (a retry with backoff, as before, held them back by 100 ms to seconds; that no backoff slept is
  // checked above, so the margin only has to catch a stall, and allows a loaded machine).
  const delays = good.map((id) => committedAt.get(id)! - enqueuedAt.get(id)!);
  expect(Math.max(...delays)).toBeLessThan(flushMs + 500);
  // Each bad row is named in a warning, with its SQLSTATE; no payload is logged.
  const logged = lines.map((l) => JSON.parse(l));
  const dropped = logged.filter((l) => l.msg === "request log dropped: the database rejected it");
  const stripped = logged.filter((l) => l.msg === "request log stored without its payloads: the database refused them");
  expect(dropped.map((w) => w.logId).sort()).toEqual(bad.filter((id) => !badPayload.has(id)).sort());
  expect(stripped.map((w) => w.logId).sort()).toEqual([...badPayload].sort());
  expect([...dropped, ...stripped].every((w) => /^22/.test(w.sqlState))).toBe(true);
  expect(lines.join("\n")).not.toContain("hello");
});

test("an awaited write with a rejected row fails at once; the rows beside it are stored", async () => {
  const lines: string[] = [];
  const logger = createLogger("info", (l) => lines.push(l));
  const writer = createRowWriter({ logger, insertRows: (rows) => insertLogRows(db.database.db, rows), sleep: () => Promise.reject(new Error("no sleeping")) });
  const a = newId("log");
  const b = newId("log");
  const c = newId("log");
  writer.enqueue(a, logRow(record(a)));
  const failing = writer.write(b, badRow(b, 1));
  writer.enqueue(c, logRow(record(c)));
  await expect(failing).rejects.toThrow();
  await writer.flush();
  const stored = await db.database.db.query.requestLogs.findMany({ where: { id: { in: [a, b, c] } }, columns: { id: true } });
  expect(stored.map((r) => r.id).sort()).toEqual([a, c].sort());
});

test("a number Postgres cannot hold is written as JSON.stringify writes it, not dropped", async () => {
  const logger = createLogger("info", () => {});
  const writer = createRowWriter({ logger, insertRows: (rows) => insertLogRows(db.database.db, rows) });
  const id = newId("log");
  const row = logRow({ ...record(id), reqPayload: { huge: 1 } }).replace('"huge":1', '"huge":1e999999');
  await writer.write(id, row);
  const deps = createDeps({ config: testConfig(), database: db.database, logger, secretKey: new Uint8Array(32) });
  const stored = await systemCtx(deps, "t").deps.database.db.query.requestLogBodies.findFirst({ where: { logId: id } });
  expect(stored?.reqPayload).toEqual({ huge: null });
});
