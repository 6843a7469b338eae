import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cpSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { sql } from "drizzle-orm";
import { systemCtx } from "../../src/domain/context";
import { MIGRATIONS_FOLDER, migrateDatabase, openDatabase, pgliteOptions, wrapPglite, type Database } from "../../src/db/client";
import {
  closeUsageHours,
  deleteExpiredLogs,
  deleteLogs,
  dropExpiredLogPartitions,
  dropExpiredUsageRollups,
  ensureLogPartitions,
  listLogPartitions,
  logUsage,
  setLogTags,
} from "../../src/domain/logs";
import { resultRows } from "../../src/domain/logs/internal";
import { markUsageHourStale } from "../../src/domain/logs/store";
import { createTestApp, type TestApp } from "../helpers/app";
import { createEmptyPostgresDatabase, TEST_DATABASE_URL } from "../helpers/db";
import { type SeedLog, seedLogs } from "../helpers/logs";
import { trpcClient } from "../helpers/trpc";

// Logs at scale, behaviour only (figures: bench/logs-scale.ts): day partitions created ahead and
// dropped by retention with an injected clock, the migration that partitions a table full of
// logs, usage rollups equal to a full scan of the logs after random traffic and tag rewrites, and
// text search over the messages.

const DAY = 86_400_000;
const HOUR = 3_600_000;
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ env: { HONE_USAGE_TAG_KEY: "prompt_id", HONE_USAGE_CLOSE_GRACE_MS: "0" } });
}, 60_000);
afterAll(() => t.close());

const db = () => t.deps.database.db;
const rows = async <T>(q: ReturnType<typeof sql>) => resultRows<T>(await db().execute(q));
const partitionOf = async (id: string) =>
  (await rows<{ p: string }>(sql`select tableoid::regclass::text as p from request_logs where id = ${id}`))[0]?.p.replaceAll('"', "");

describe("day partitions", () => {
  test("created ahead by Hone, logs land in their day (or the default partition), retention drops whole days", async () => {
    const today = Math.floor(Date.now() / DAY) * DAY;
    const d30 = today + 30 * DAY;
    // A log stamped 31 days ahead (a clock that ran ahead) has no day partition yet: the default takes it.
    const [early] = await seedLogs(t, [{ at: new Date(d30 + DAY + HOUR), completionId: "ahead" }]);
    expect(await partitionOf(early!.id)).toBe("request_logs_default");

    const created = await ensureLogPartitions(systemCtx(t.deps, "test"), new Date(d30 + 5 * HOUR));
    const day = (ms: number) => new Date(ms).toISOString().slice(0, 10).replaceAll("-", "");
    expect(created).toEqual([0, 1, 2, 3].flatMap((i) => [`request_logs_p${day(d30 + i * DAY)}`, `request_log_bodies_p${day(d30 + i * DAY)}`]));
    // Created for today + 3 days; running again creates nothing.
    expect(await ensureLogPartitions(systemCtx(t.deps, "test"), new Date(d30 + 5 * HOUR))).toEqual([]);
    // The early log moved out of the default partition into its day, with its body.
    expect(await partitionOf(early!.id)).toBe(`request_logs_p${day(d30 + DAY)}`);
    expect((await rows(sql`select 1 from request_log_bodies where log_id = ${early!.id}`)).length).toBe(1);

    const logs = await seedLogs(t, [
      { at: new Date(d30 + 2 * HOUR), completionId: "d30" },
      { at: new Date(d30 + DAY + 2 * HOUR), completionId: "d31" },
      { at: new Date(d30 + 2 * DAY + 1 * HOUR), completionId: "d32-early" },
      { at: new Date(d30 + 2 * DAY + 20 * HOUR), completionId: "d32-late" },
    ]);
    expect(await partitionOf(logs[2]!.id)).toBe(`request_logs_p${day(d30 + 2 * DAY)}`);
    const ds = await trpcClient(t).datasets.create.mutate({ name: "from logs" });
    await trpcClient(t).datasets.importLogs.mutate({ datasetId: ds.id, logIds: [logs[0]!.id] });

    // Retention at d32 + 12h, keeping one day: everything before d31 + 12h goes.
    const before = new Date(d30 + DAY + 12 * HOUR);
    const dropped = await dropExpiredLogPartitions(systemCtx(t.deps, "test"), before);
    expect(dropped).toEqual(expect.arrayContaining(["request_logs_legacy", `request_logs_p${day(d30)}`]));
    expect(dropped).not.toContain(`request_logs_p${day(d30 + DAY)}`);
    const left = (await listLogPartitions(db())).map((p) => p.name);
    expect(left).not.toContain(`request_logs_p${day(d30)}`);
    expect((await listLogPartitions(db(), "request_log_bodies")).map((p) => p.name)).not.toContain(`request_log_bodies_p${day(d30)}`);
    // The day the limit falls in keeps its newer logs; its older ones are deleted in batches.
    expect(await deleteExpiredLogs(systemCtx(t.deps, "test"), { before })).toBe(2); // d31 and the early one (d31 + 1h)
    const kept = await rows<{ completion_id: string }>(sql`select completion_id from request_logs order by id`);
    expect(kept.map((r) => r.completion_id)).toEqual(["d32-early", "d32-late"]);
    expect((await rows(sql`select 1 from request_log_bodies`)).length).toBe(2);
    // The dataset entry from a dropped log stays, without its source.
    const { entries } = await trpcClient(t).datasets.listEntries.query({ datasetId: ds.id });
    expect(entries).toHaveLength(1);
    expect(entries[0]!.sourceLogId).toBeNull();

    // A filtered page reads the days newest first: paged one by one, every match comes once, in order.
    const p = await t.createProject("paging");
    const tagged = await seedLogs(
      t,
      [d30 + 2 * DAY + 13 * HOUR, d30 + 3 * DAY + HOUR, d30 + 3 * DAY + 2 * HOUR, d30 + 5 * DAY].map((at) => ({ at: new Date(at), tags: { k: "v" } })),
      p.projectId,
    );
    const seen: string[] = [];
    let after: string | null = null;
    do {
      const page: { logs: { id: string }[]; hasNextPage: boolean; endCursor: string | null } = await trpcClient(t, p.apiKey).logs.list.query({
        filter: { tags: [{ key: "k", equals: "v" }] },
        first: 1,
        after,
      });
      seen.push(...page.logs.map((l) => l.id));
      after = page.hasNextPage ? page.endCursor : null;
    } while (after);
    expect(seen).toEqual(tagged.map((l) => l.id).reverse());
  });
});

/** A database at the migration before partitioning, then the rest: every row must survive. */
async function openAt(folder: string): Promise<{ database: Database; drop(): Promise<void> }> {
  if (!TEST_DATABASE_URL) {
    const pg = new PGlite("memory://", await pgliteOptions());
    const database = await wrapPglite(pg);
    await migrateDatabase(database, { migrationsFolder: folder });
    return { database, drop: () => database.close() };
  }
  const empty = await createEmptyPostgresDatabase();
  const database = await openDatabase({ databaseUrl: empty.url, dataDir: "unused", dbPoolSize: 2 }, { migrate: false });
  await migrateDatabase(database, { migrationsFolder: folder });
  return {
    database,
    drop: async () => {
      await database.close();
      await empty.drop();
    },
  };
}

describe("the partitioning migration", () => {
  test("moves a table full of logs without losing one: rows, bodies, dataset links, search", async () => {
    const dir = mkdtempSync(join(tmpdir(), "hone-migrations-"));
    for (const m of readdirSync(MIGRATIONS_FOLDER).filter((m) => m < "20261124040306")) cpSync(join(MIGRATIONS_FOLDER, m), join(dir, m), { recursive: true });
    const { database, drop } = await openAt(dir);
    try {
      const x = database.db;
      const n = 3_000;
      // 3,000 logs over the last 60 days and one stamped a day ahead, with bodies.
      await x.execute(sql`insert into request_logs (id, project_id, source, model, status_code, metadata)
        select 'log_' || lpad(to_hex((extract(epoch from now()) * 1000)::bigint - (i::bigint * 1728000)), 12, '0') || lpad(to_hex(i), 20, '0'),
          'prj_m', 'report', 'model-' || (i % 3), 200, jsonb_build_object('i', i::text)
        from generate_series(1, ${n}) i`);
      await x.execute(sql`insert into request_logs (id, project_id, source, model) values
        ('log_' || lpad(to_hex((extract(epoch from now()) * 1000)::bigint + 86400000), 12, '0') || '00000000000000000001', 'prj_m', 'report', 'ahead')`);
      await x.execute(sql`insert into request_log_bodies (log_id, req_payload, resp_payload)
        select id, jsonb_build_object('messages', jsonb_build_array(jsonb_build_object('role', 'user', 'content', 'question ' || (metadata ->> 'i')))),
          '{"choices": [{"message": {"role": "assistant", "content": "an answer about zebras"}}]}'::jsonb
        from request_logs`);
      const before = resultRows<{ ids: string; n: number }>(
        await x.execute(sql`select md5(string_agg(id || coalesce(model, ''), ',' order by id)) as ids, count(*)::int as n from request_logs`),
      )[0]!;
      expect(Number(before.n)).toBe(n + 1);

      await migrateDatabase(database);
      // A later migration spells every model provider:model (these bare names are OpenAI's).
      const after = resultRows<{ ids: string; n: number }>(
        await x.execute(
          sql`select md5(string_agg(id || coalesce(regexp_replace(model, '^openai:', ''), ''), ',' order by id)) as ids, count(*)::int as n from request_logs`,
        ),
      )[0]!;
      expect(after).toEqual(before);
      const kinds = resultRows<{ kind: string }>(await x.execute(sql`select relkind::text as kind from pg_class where relname = 'request_logs'`));
      expect(kinds[0]!.kind).toBe("p");
      const parts = await listLogPartitions(x);
      expect(parts.map((p) => p.name).sort()).toEqual(["request_logs_default", "request_logs_legacy"]);
      // Every body came along and has its search text.
      const bodies = resultRows<{ n: number; zebras: number; q: number }>(
        await x.execute(sql`select count(*)::int as n, (count(*) filter (where search_text ilike '%zebras%'))::int as zebras,
          (count(*) filter (where search_text ilike '%question 1234%'))::int as q from request_log_bodies`),
      )[0]!;
      expect(bodies).toEqual({ n: n + 1, zebras: n + 1, q: 1 });
    } finally {
      await drop();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});

describe("usage rollups", () => {
  test("after random traffic, tag rewrites and a late log, the rollups answer exactly what a full scan of the logs says", async () => {
    const p = await t.createProject("rollups");
    const now = Date.now();
    const start = Math.floor(now / HOUR) * HOUR - 30 * HOUR;
    let seed = 7;
    const rand = () => {
      seed = (seed * 48271) % 2147483647;
      return seed / 2147483647;
    };
    const models = ["gpt-4o", "gpt-4o-mini", "claude", null];
    const logs: SeedLog[] = Array.from({ length: 1500 }, (_, i) => ({
      at: new Date(start + Math.floor(rand() * 31 * HOUR)),
      model: models[i % 4],
      provider: i % 5 === 0 ? null : i % 2 ? "openai" : "anthropic",
      source: (["gateway", "report", "report-anthropic"] as const)[i % 3]!,
      statusCode: [200, 200, 200, 429, 500, null, 0][i % 7] as number | null,
      durationMs: i % 9 === 0 ? null : Math.floor(rand() * 5000),
      inputTokens: i % 11 === 0 ? null : Math.floor(rand() * 1000),
      outputTokens: Math.floor(rand() * 500),
      costUsd: i % 13 === 0 ? null : rand() / 100,
      tags: i % 6 === 0 ? ({} as Record<string, string>) : { prompt_id: `p${i % 7}`, user: `u${i % 10}` },
    }));
    const seeded = await seedLogs(t, logs, p.projectId);
    const ctx = { ...systemCtx(t.deps, "test"), projectId: p.projectId };
    // Close every hour up to now (several runs: 48 hours at most per run).
    while ((await closeUsageHours(ctx, new Date(now))) > 0);
    const from = new Date(start - 2.5 * HOUR);
    const to = new Date(now + HOUR);

    const scan = async (group: string) =>
      Object.fromEntries(
        (
          await rows<{ g: string | null; n: number; e: number; i: number; o: number; c: number }>(sql`
            select ${sql.raw(group)} as g, count(*)::int as n,
              (count(*) filter (where status_code is null or status_code = 0 or status_code >= 400))::int as e,
              coalesce(sum(input_tokens), 0)::float8 as i, coalesce(sum(output_tokens), 0)::float8 as o, coalesce(sum(cost_usd), 0)::float8 as c
            from request_logs where project_id = ${p.projectId} group by 1`)
        ).map((r) => [String(r.g), r]),
      );
    const check = async (groupBy: "model" | "provider" | "source" | "tag", column: string) => {
      const usage = await logUsage(ctx, { from, to, bucket: "day", groupBy, tagKey: groupBy === "tag" ? "prompt_id" : null });
      const raw = await scan(column);
      expect(usage.groups.map((g) => String(g.group)).sort()).toEqual(Object.keys(raw).sort());
      for (const g of usage.groups) {
        const r = raw[String(g.group)]!;
        expect([g.requests, g.errors, g.inputTokens, g.outputTokens]).toEqual([r.n, r.e, r.i, r.o]);
        expect(g.costUsd).toBeCloseTo(r.c, 9);
      }
      const perDay = usage.series.reduce((s, x) => s + x.requests, 0);
      expect(perDay).toBe(seededCount());
      return usage;
    };
    let deleted = 0;
    let expired = 0;
    const seededCount = () => seeded.length + 1 - deleted - expired;
    // A late log: a writer's batch that commits after its hour (two hours ago) was closed.
    await seedLogs(t, [{ at: new Date(Math.floor(now / HOUR) * HOUR - 2 * HOUR + 5), model: "late", tags: { prompt_id: "p1" } }], p.projectId);
    await closeUsageHours(ctx, new Date(now));
    const byModel = await check("model", "model");
    expect(byModel.totals.p50Ms).not.toBeNull();
    await check("provider", "provider");
    await check("source", "source");
    await check("tag", "metadata ->> 'prompt_id'");
    // The rollups are what answered: rows exist for closed hours.
    expect((await rows(sql`select 1 from usage_hourly where project_id = ${p.projectId} limit 1`)).length).toBe(1);

    // Rewriting the rolled-up tag on closed hours re-sums them at once.
    const r = await setLogTags(ctx, { filter: { model: "gpt-4o" }, set: { prompt_id: "moved" } });
    expect(r.updated).toBeGreaterThan(100);
    const usage = await check("tag", "metadata ->> 'prompt_id'");
    expect(usage.groups.find((g) => g.group === "moved")?.requests).toBe(r.updated);
    await trpcClient(t, p.apiKey).logs.setTags.mutate({ filter: { model: "claude" }, remove: ["prompt_id"] });
    await check("tag", "metadata ->> 'prompt_id'");
    // Deleting by filter (a privacy request) takes the logs out of their hours' rollups.
    const gone = await deleteLogs(ctx, { filter: { tags: [{ key: "user", equals: "u3" }] } });
    expect(gone.deleted).toBeGreaterThan(50);
    deleted += gone.deleted;
    await check("model", "model");
    await check("tag", "metadata ->> 'prompt_id'");
    // Small batches: many transactions, each going on through the days until it holds 7 logs.
    const small = await deleteLogs(ctx, { filter: { tags: [{ key: "user", equals: "u4" }] } }, { batchSize: 7 });
    expect(small).toEqual({ deleted: expect.any(Number), done: true });
    expect(small.deleted).toBeGreaterThan(50);
    deleted += small.deleted;
    await check("model", "model");
    await check("provider", "provider");
    await check("tag", "metadata ->> 'prompt_id'");
    // A delete that empties rollup rows (every log of a tag value) takes those rows away, not leaves them at zero.
    const p0 = await deleteLogs(ctx, { filter: { tags: [{ key: "prompt_id", equals: "p0" }] } });
    expect(p0.deleted).toBeGreaterThan(20);
    deleted += p0.deleted;
    await check("tag", "metadata ->> 'prompt_id'");
    await check("model", "model");
    for (const table of ["usage_hourly_tags", "usage_daily_tags"])
      expect(await rows(sql`select 1 from ${sql.raw(table)} where project_id = ${p.projectId} and tag = 'p0'`)).toEqual([]);
    for (const table of ["usage_hourly", "usage_hourly_tags", "usage_daily", "usage_daily_tags"])
      expect(await rows(sql`select 1 from ${sql.raw(table)} where project_id = ${p.projectId} and requests <= 0`)).toEqual([]);
    // A model filter is served by the rollups too, and equals the scan.
    const claude = await logUsage(ctx, { from, to, bucket: "hour", groupBy: "none", filter: { model: "claude" } });
    expect(claude.totals.requests).toBe((await scan("model")).claude!.n);
    // Retention: the logs before a limit and the rollups of their hours go together.
    const limit = new Date(start + 10 * HOUR);
    expired = await deleteExpiredLogs(ctx, { before: limit });
    expect(expired).toBeGreaterThan(100);
    await dropExpiredUsageRollups(ctx, limit);
    await check("model", "model");
  }, 60_000);

  test("split by a tag of more than 20 values: the top 20 and the rest folded into other, as the logs say", async () => {
    const p = await t.createProject("rollups-fold");
    const ctx = { ...systemCtx(t.deps, "test"), projectId: p.projectId };
    const now = Date.now();
    const start = Math.floor(now / HOUR) * HOUR - 12 * HOUR;
    const logs: SeedLog[] = Array.from({ length: 700 }, (_, i) => ({
      at: new Date(start + ((i * 7919) % (12 * HOUR))),
      model: `m${i % 3}`,
      statusCode: i % 10 === 0 ? 500 : 200,
      durationMs: i % 17 === 0 ? null : 100 + (i % 50) * 10,
      inputTokens: i % 100,
      outputTokens: 3,
      // Multiples of 1/1024 add up exactly in any order.
      costUsd: (i % 8) / 1024,
      // 29 values, unevenly spread, ties among them, and logs without the tag.
      tags: i % 13 === 0 ? ({} as Record<string, string>) : { prompt_id: `q${i % 7 === 0 ? 0 : (i * 11) % 29}` },
    }));
    const seeded = await seedLogs(t, logs, p.projectId);
    // Hours an earlier test may have closed already: summed again by the next run, as for a backfill.
    const perHour = new Map(seeded.map((l) => [Math.floor(l.requestedAt!.getTime() / HOUR), l.id]));
    for (const id of perHour.values()) await markUsageHourStale(ctx, id);
    while ((await closeUsageHours(ctx, new Date(now))) > 0);
    const input = { from: new Date(start - HOUR / 2), to: new Date(now + HOUR), bucket: "hour" as const, groupBy: "tag" as const, tagKey: "prompt_id" };
    const rolled = await logUsage(ctx, input);
    // internal: false matches every one of these logs, and the tag rollups cannot answer it: the logs answer.
    const logged = await logUsage(ctx, { ...input, filter: { internal: false } });
    // The rollups answered: their p50 comes from a histogram, the logs' is exact.
    expect(rolled.totals.p50Ms).not.toBe(logged.totals.p50Ms);
    expect(rolled.groups).toHaveLength(21);
    expect(rolled.groups[20]).toMatchObject({ group: "other", other: true });
    const exact = (g: {
      group: string | null;
      other: boolean;
      requests: number;
      errors: number;
      inputTokens: number;
      outputTokens: number;
      costUsd: number;
    }) => ({
      group: g.group,
      other: g.other,
      requests: g.requests,
      errors: g.errors,
      inputTokens: g.inputTokens,
      outputTokens: g.outputTokens,
      costUsd: g.costUsd,
    });
    expect(rolled.groups.map(exact)).toEqual(logged.groups.map(exact));
    const series = (u: typeof rolled) => u.series.map((s) => ({ start: s.start.getTime(), ...exact(s) }));
    expect(series(rolled)).toEqual(series(logged));
    expect(rolled.series.filter((s) => s.other).reduce((n, s) => n + s.requests, 0)).toBe(rolled.groups[20]!.requests);
    expect(rolled.totals.requests).toBe(700);
    // Percentiles from the histograms (4 bins per doubling) are within a bin of the exact ones.
    for (const [i, g] of rolled.groups.entries()) {
      const exactP = logged.groups[i]!;
      for (const k of ["p50Ms", "p95Ms"] as const) {
        expect(g[k]).not.toBeNull();
        expect(Math.abs(g[k]! / exactP[k]! - 1)).toBeLessThan(0.1);
      }
    }
  });
});

describe("text search", () => {
  test("finds words in messages, answers, content parts and tool arguments, combined with other filters", async () => {
    const p = await t.createProject("search");
    const msg = (content: unknown) => ({
      model: "m",
      messages: [
        { role: "system", content: "You are terse." },
        { role: "user", content },
      ],
    });
    const answer = (message: object) => ({ choices: [{ index: 0, message: { role: "assistant", ...message } }] });
    const logs = await seedLogs(
      t,
      [
        { model: "a", reqPayload: msg("Where is my PARCEL?"), respPayload: answer({ content: "On its way." }), completionId: "user-text" },
        { model: "b", reqPayload: msg("hello"), respPayload: answer({ content: "Your parcel arrives Monday." }), completionId: "answer-text" },
        { model: "a", reqPayload: msg([{ type: "text", text: "photo of a parcel" }]), respPayload: answer({ content: "ok" }), completionId: "part-text" },
        {
          model: "a",
          reqPayload: msg("track it"),
          respPayload: answer({ content: null, tool_calls: [{ id: "c", type: "function", function: { name: "track", arguments: '{"parcel_id":"P-9"}' } }] }),
          completionId: "tool-args",
        },
        { model: "a", reqPayload: { model: "m", parcel: "not a message" }, respPayload: answer({ content: "nothing" }), completionId: "key-only" },
        { model: "a", reqPayload: msg("a 100% match_"), respPayload: answer({ content: "x" }), completionId: "wildcards" },
      ],
      p.projectId,
    );
    expect(logs).toHaveLength(6);
    // What the gateway writes for new logs is what the migration computes for older ones.
    const same = await rows<{ js: string; sql: string }>(sql`select search_text as js, hone_log_search_text(req_payload, resp_payload) as sql
      from request_log_bodies where log_id in (${sql.join(
        logs.map((l) => sql`${l.id}`),
        sql`, `,
      )})`);
    expect(same).toHaveLength(6);
    for (const r of same) expect(r.js).toBe(r.sql);
    const trpc = trpcClient(t, p.apiKey);
    const found = async (filter: object) => (await trpc.logs.list.query({ filter })).logs.map((l) => l.completionId).sort();
    expect(await found({ search: "parcel" })).toEqual(["answer-text", "part-text", "tool-args", "user-text"]);
    expect(await found({ search: "parcel", model: "a" })).toEqual(["part-text", "tool-args", "user-text"]);
    expect(await found({ search: "ARRIVES monday" })).toEqual(["answer-text"]);
    // % and _ are literal characters, not wildcards.
    expect(await found({ search: "100% match_" })).toEqual(["wildcards"]);
    expect(await found({ search: "1_0" })).toEqual([]);
    expect((await trpc.logs.count.query({ filter: { search: "parcel" } })).count).toBe(4);
    // Another project's logs never match.
    expect((await trpcClient(t).logs.list.query({ filter: { search: "parcel" } })).logs).toEqual([]);
  });
});

describe("the migration that keeps Hone's own calls apart and dates logs by their calls", () => {
  test("internal calls get their source and kind, models one spelling, late logs their call's time, older logs previews", async () => {
    const dir = mkdtempSync(join(tmpdir(), "hone-migrations-"));
    for (const m of readdirSync(MIGRATIONS_FOLDER).filter((m) => m < "20261126202646")) cpSync(join(MIGRATIONS_FOLDER, m), join(dir, m), { recursive: true });
    const { database, drop } = await openAt(dir);
    try {
      const x = database.db;
      const now = Date.now();
      const idAt = (ms: number, tail: string) => `log_${ms.toString(16).padStart(12, "0")}${tail.padStart(20, "0")}`;
      const threeDaysAgo = now - 3 * 86_400_000;
      const rows: [string, string, string, string | null, Record<string, string>, number | null][] = [
        [idAt(now - 5_000, "1"), "gateway", "gpt-4o-mini", null, { "hone.criterion": "crit_x@v1" }, now - 7_000],
        [idAt(now - 4_000, "2"), "gateway", "openai:gpt-4o-mini", null, { "hone.evaluation": "eval_x" }, now - 4_500],
        [idAt(now - 3_000, "3"), "gateway", "openpipe:support-v1", null, { "hone.source": "playground" }, now - 3_200],
        [idAt(now - 2_000, "4"), "gateway", "gpt-4o-mini", null, { user: "u1" }, now - 2_100],
        // Reported now, made three days ago: dated when it was made.
        [idAt(now - 1_000, "5"), "report-anthropic", "claude-3-5-haiku", "anthropic", {}, threeDaysAgo],
      ];
      for (const [id, source, model, provider, metadata, requested] of rows) {
        await x.execute(sql`insert into request_logs (id, project_id, source, model, provider, status_code, metadata, requested_at)
          values (${id}, 'prj_m', ${source}, ${model}, ${provider}, 200, ${JSON.stringify(metadata)}::text::jsonb, ${requested === null ? null : new Date(requested).toISOString()}::timestamptz)`);
        await x.execute(sql`insert into request_log_bodies (log_id, req_payload, resp_payload) values (${id},
          ${JSON.stringify({
            messages: [
              { role: "system", content: "be brief" },
              { role: "user", content: `  question\n ${id}` },
            ],
          })}::text::jsonb,
          ${JSON.stringify({ choices: [{ message: { role: "assistant", content: null, tool_calls: [{ function: { name: "lookup", arguments: '{"q":1}' } }] } }] })}::text::jsonb)`);
      }
      await x.execute(sql`insert into projects (id, name) values ('prj_m', 'm')`);
      await x.execute(sql`insert into datasets (id, project_id, name) values ('ds_m', 'prj_m', 'd')`);
      await x.execute(sql`insert into dataset_entries (id, dataset_id, project_id, messages, split, source_log_id)
        values ('dse_m', 'ds_m', 'prj_m', '[]'::jsonb, 'TRAIN', ${rows[4]![0]})`);

      await migrateDatabase(database);
      const after = resultRows<{ id: string; source: string; internal_kind: string | null; model: string; input_preview: string; output_preview: string }>(
        await x.execute(sql`select id, source, internal_kind, model, input_preview, output_preview from request_logs where project_id = 'prj_m' order by id`),
      );
      expect(after.map((r) => [r.source, r.internal_kind, r.model])).toEqual([
        ["report-anthropic", null, "anthropic:claude-3-5-haiku"],
        ["internal", "judge", "openai:gpt-4o-mini"],
        ["internal", "evaluation", "openai:gpt-4o-mini"],
        ["internal", "playground", "hone:support-v1"],
        ["gateway", null, "openai:gpt-4o-mini"],
      ]);
      // The report now sits three days back; its body and the entry made from it followed it.
      const report = after[0]!;
      expect(Number.parseInt(report.id.slice(4, 16), 16)).toBe(threeDaysAgo);
      expect(report.id.slice(16)).toBe(rows[4]![0].slice(16));
      const body = resultRows<{ n: number }>(await x.execute(sql`select count(*)::int as n from request_log_bodies where log_id = ${report.id}`))[0]!;
      expect(Number(body.n)).toBe(1);
      const entry = resultRows<{ source_log_id: string }>(await x.execute(sql`select source_log_id from dataset_entries where id = 'dse_m'`))[0]!;
      expect(entry.source_log_id).toBe(report.id);
      // The gateway logs' ids moved to their receipt times too (more than a second apart).
      expect(Number.parseInt(after[1]!.id.slice(4, 16), 16)).toBe(now - 7_000);
      // Previews, as the writer makes them for new logs.
      expect(after[4]!.input_preview).toBe(`question ${rows[3]![0]}`);
      expect(after[4]!.output_preview).toBe('lookup({"q":1})');
    } finally {
      await drop();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
