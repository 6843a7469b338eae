import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { NewRequestLog } from "../../src/domain/logs";
import { createTestApp, type TestApp } from "../helpers/app";
import { gql } from "../helpers/gql";
import { seedLogs, type SeedLog } from "../helpers/logs";
import { trpcClient, trpcFailure } from "../helpers/trpc";

// logs.usage (tRPC) and usage (GraphQL): every figure must equal a sum computed here from the
// seeded logs, per UTC bucket, per group and in total.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

const DAY = 86_400_000;
const FROM = Date.UTC(2025, 2, 1); // 2025-03-01T00:00Z
const TO = FROM + 3 * DAY;

// A small deterministic generator, so failures reproduce.
function rng(seed: number) {
  let s = seed;
  return () => {
    s = (s * 1_103_515_245 + 12_345) % 2_147_483_648;
    return s / 2_147_483_648;
  };
}

function percentile(values: number[], p: number): number | null {
  if (!values.length) return null;
  const v = [...values].sort((a, b) => a - b);
  const pos = p * (v.length - 1);
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return v[lo]! + (v[hi]! - v[lo]!) * (pos - lo);
}

type Fig = { requests: number; errors: number; inputTokens: number; outputTokens: number; costUsd: number; p50Ms: number | null; p95Ms: number | null };
function figures(logs: NewRequestLog[]): Fig {
  const durations = logs.map((l) => l.durationMs).filter((d): d is number => d !== null);
  return {
    requests: logs.length,
    errors: logs.filter((l) => l.statusCode === null || l.statusCode === 0 || l.statusCode >= 400).length,
    inputTokens: logs.reduce((s, l) => s + (l.inputTokens ?? 0), 0),
    outputTokens: logs.reduce((s, l) => s + (l.outputTokens ?? 0), 0),
    costUsd: logs.reduce((s, l) => s + (l.costUsd ?? 0), 0),
    p50Ms: percentile(durations, 0.5),
    p95Ms: percentile(durations, 0.95),
  };
}
const close = (a: Fig, b: Fig) => {
  const { p50Ms, p95Ms } = a;
  const exact = { requests: a.requests, errors: a.errors, inputTokens: a.inputTokens, outputTokens: a.outputTokens, costUsd: a.costUsd };
  expect(exact).toEqual({ requests: b.requests, errors: b.errors, inputTokens: b.inputTokens, outputTokens: b.outputTokens, costUsd: b.costUsd });
  if (b.p50Ms === null) expect(p50Ms).toBeNull();
  else expect(p50Ms!).toBeCloseTo(b.p50Ms, 6);
  if (b.p95Ms === null) expect(p95Ms).toBeNull();
  else expect(p95Ms!).toBeCloseTo(b.p95Ms, 6);
};

describe("logs.usage", () => {
  let logs: NewRequestLog[];
  let key: string;
  beforeAll(async () => {
    const p = await t.createProject("usage");
    key = p.apiKey;
    const r = rng(7);
    const statuses = [200, 200, 200, 200, 201, 400, 429, 500, null, 0];
    const seeds: SeedLog[] = [];
    // 400 logs over 3 days and a bit either side (outside the range: must not count).
    for (let i = 0; i < 400; i++) {
      const at = new Date(FROM - 2 * 3600_000 + Math.floor(r() * (3 * DAY + 4 * 3600_000)));
      seeds.push({
        at,
        model: i % 7 === 0 ? null : `model-${Math.floor(r() * 4)}`,
        provider: r() < 0.5 ? "openai" : r() < 0.5 ? "anthropic" : null,
        source: r() < 0.7 ? "gateway" : "report",
        statusCode: statuses[Math.floor(r() * statuses.length)]!,
        durationMs: r() < 0.1 ? null : Math.floor(r() * 5000),
        inputTokens: r() < 0.1 ? null : Math.floor(r() * 2000),
        outputTokens: Math.floor(r() * 500),
        // Multiples of 1/1024 add up exactly in any order.
        costUsd: r() < 0.1 ? null : Math.floor(r() * 4096) / 1024,
        // 25 prompt ids (more than the 20 groups kept), unevenly spread, and some logs without.
        tags: i % 9 === 0 ? {} : { prompt_id: `p${Math.floor(r() * r() * 25)}` },
      });
    }
    logs = (await seedLogs(t, seeds, p.projectId)).filter((l) => l.requestedAt!.getTime() >= FROM && l.requestedAt!.getTime() < TO);
    // Another project's calls in the same range never count.
    await seedLogs(t, [{ at: new Date(FROM + 1000), inputTokens: 999_999, costUsd: 1000 }]);
  });

  const timeOf = (l: NewRequestLog) => l.requestedAt!.getTime();

  test("by day: totals and every bucket equal the logs", async () => {
    const u = await trpcClient(t, key).logs.usage.query({ from: new Date(FROM).toISOString(), to: new Date(TO).toISOString(), bucket: "day" });
    expect(u.bucket).toBe("day");
    expect(u.groups).toEqual([]);
    close(u.totals, figures(logs));
    expect(u.series.map((s) => s.start)).toEqual([0, 1, 2].map((d) => new Date(FROM + d * DAY).toISOString()));
    for (const s of u.series) {
      const start = Date.parse(s.start);
      expect(s.group).toBeNull();
      close(s, figures(logs.filter((l) => timeOf(l) >= start && timeOf(l) < start + DAY)));
    }
  });

  test("by hour and model: series, groups and totals agree with the logs and each other", async () => {
    const u = await trpcClient(t, key).logs.usage.query({
      from: new Date(FROM).toISOString(),
      to: new Date(TO).toISOString(),
      bucket: "hour",
      groupBy: "model",
    });
    close(u.totals, figures(logs));
    const models = [...new Set(logs.map((l) => l.model))];
    expect(u.groups.map((g) => g.group).sort()).toEqual(models.sort());
    for (const g of u.groups) close(g, figures(logs.filter((l) => l.model === g.group)));
    expect(u.groups.map((g) => g.requests)).toEqual([...u.groups.map((g) => g.requests)].sort((a, b) => b - a));
    for (const s of u.series) {
      const start = Date.parse(s.start);
      expect(start % 3_600_000).toBe(0);
      close(s, figures(logs.filter((l) => l.model === s.group && timeOf(l) >= start && timeOf(l) < start + 3_600_000)));
    }
    expect(u.series.reduce((n, s) => n + s.requests, 0)).toBe(logs.length);
  });

  test("by tag: the top 20 values, the rest summed exactly into other", async () => {
    const u = await trpcClient(t, key).logs.usage.query({
      from: new Date(FROM).toISOString(),
      to: new Date(TO).toISOString(),
      bucket: "day",
      groupBy: "tag",
      tagKey: "prompt_id",
    });
    const tagOf = (l: NewRequestLog) => l.tags.prompt_id ?? null;
    const counts = new Map<string | null, number>();
    for (const l of logs) counts.set(tagOf(l), (counts.get(tagOf(l)) ?? 0) + 1);
    expect(counts.size).toBeGreaterThan(20);
    const top = [...counts.entries()]
      .sort((a, b) => b[1] - a[1] || (a[0] === null ? 1 : b[0] === null ? -1 : a[0] < b[0] ? -1 : 1))
      .slice(0, 20)
      .map((e) => e[0]);
    expect(u.groups).toHaveLength(21);
    expect(
      u.groups
        .slice(0, 20)
        .map((g) => g.group)
        .sort(),
    ).toEqual([...top].sort());
    for (const g of u.groups.slice(0, 20)) close(g, figures(logs.filter((l) => tagOf(l) === g.group)));
    const other = u.groups[20]!;
    expect(other).toMatchObject({ group: "other", other: true });
    close(other, figures(logs.filter((l) => !top.includes(tagOf(l)))));
    close(u.totals, figures(logs));
    const otherSeries = u.series.filter((s) => s.other);
    expect(otherSeries.reduce((n, s) => n + s.requests, 0)).toBe(other.requests);
  });

  test("with a filter, by provider and source", async () => {
    const c = trpcClient(t, key);
    const range = { from: new Date(FROM).toISOString(), to: new Date(TO).toISOString(), bucket: "day" as const };
    const ok = await c.logs.usage.query({ ...range, groupBy: "provider", filter: { statusClass: "2xx" } });
    const okLogs = logs.filter((l) => l.statusCode !== null && l.statusCode >= 200 && l.statusCode < 300);
    close(ok.totals, figures(okLogs));
    expect(ok.totals.errors).toBe(0);
    for (const g of ok.groups) close(g, figures(okLogs.filter((l) => l.provider === g.group)));
    const bySource = await c.logs.usage.query({ ...range, groupBy: "source" });
    for (const g of bySource.groups) close(g, figures(logs.filter((l) => l.source === g.group)));
  });

  test("GraphQL usage has the same figures", async () => {
    const vars = { from: new Date(FROM).toISOString(), to: new Date(TO).toISOString(), bucket: "day", groupBy: "model" };
    const g = await gql(
      t,
      `query($from: String!, $to: String!, $bucket: String!, $groupBy: String) {
        usage(from: $from, to: $to, bucket: $bucket, groupBy: $groupBy) {
          bucket from to
          series { start group other requests errors inputTokens outputTokens costUsd classes { tokenClass tokens costUsd } unpriced refused p50Ms p95Ms }
          groups { group other requests errors inputTokens outputTokens costUsd classes { tokenClass tokens costUsd } unpriced refused p50Ms p95Ms }
          totals { requests errors inputTokens outputTokens costUsd classes { tokenClass tokens costUsd } unpriced refused p50Ms p95Ms } } }`,
      vars,
      { key },
    );
    expect(g.errors).toBeUndefined();
    // GraphQL sums the classes because the query selects them; tRPC when asked.
    const r = await trpcClient(t, key).logs.usage.query({ ...vars, classes: true } as never);
    // tRPC keeps the classes as a map ({input_tokens, input_usd, ...}); GraphQL lists them.
    const listed = (f: { classes: Record<string, number> }) => ({
      ...f,
      classes: Object.keys(f.classes)
        .filter((k) => k.endsWith("_tokens"))
        .map((k) => ({ tokenClass: k.slice(0, -7), tokens: f.classes[k], costUsd: f.classes[`${k.slice(0, -7)}_usd`] ?? null })),
    });
    expect(g.data.usage).toEqual({ ...r, series: r.series.map(listed), groups: r.groups.map(listed), totals: listed(r.totals) });
  });

  test("empty range: zeros", async () => {
    const u = await trpcClient(t, key).logs.usage.query({ from: "2020-01-01T00:00:00Z", to: "2020-01-02T00:00:00Z", bucket: "hour", groupBy: "model" });
    expect(u).toMatchObject({
      series: [],
      groups: [],
      totals: { requests: 0, errors: 0, inputTokens: 0, outputTokens: 0, costUsd: 0, p50Ms: null, p95Ms: null },
    });
  });

  test("bad ranges and arguments are VALIDATION", async () => {
    const c = trpcClient(t, key);
    const bad = async (input: object) => {
      const err = await trpcFailure(c.logs.usage.query(input as never));
      expect(err.data?.code).toBe("VALIDATION");
      expect(err.data?.httpStatus).toBe(400);
      return JSON.stringify(err.data?.issues);
    };
    expect(await bad({ from: "2025-01-02", to: "2025-01-01", bucket: "day" })).toContain("to must be after from");
    expect(await bad({ from: "2025-01-01", to: "2025-02-02", bucket: "hour" })).toContain("at most 31 days");
    expect(await bad({ from: "2024-01-01", to: "2025-03-01", bucket: "day" })).toContain("at most 400 days");
    expect(await bad({ from: "2025-01-01", to: "2025-01-02", bucket: "day", groupBy: "tag" })).toContain("tagKey is required");
    await bad({ from: "2025-01-01", to: "2025-01-02", bucket: "week" });
    await bad({ from: "nope", to: "2025-01-02", bucket: "day" });
    await bad({ from: "2025-01-01", to: "2025-01-02", bucket: "day", groupBy: "user" });
    const g = await gql(t, `{ usage(from: "2025-01-01", to: "2026-01-01", bucket: "hour") { totals { requests } } }`, {}, { key });
    expect(g.errors[0].extensions.code).toBe("VALIDATION");
  });
});
