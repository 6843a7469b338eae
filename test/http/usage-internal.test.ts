import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { systemCtx } from "../../src/domain/context";
import { closeUsageHours, logUsage } from "../../src/domain/logs";
import { usageFromRollups } from "../../src/domain/logs/usage-from-rollups";
import { createTestApp, type TestApp } from "../helpers/app";
import { type SeedLog, seedLogs } from "../helpers/logs";
import { trpcClient } from "../helpers/trpc";

// The console's Usage page sums the application's calls (internal: false) and Hone's own calls
// (internal: true) apart. Both must be what the logs say, and come from the rollups for closed hours
// (a month of a busy project must not be a scan of every log).

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

const HOUR = 3_600_000;

describe("usage of the application's calls and of Hone's own, apart", () => {
  test("internal: true / false equal a count of the logs, from the rollups for closed hours, on tRPC too", async () => {
    const p = await t.createProject("usage-internal");
    const now = Date.now();
    const start = Math.floor(now / HOUR) * HOUR - 20 * HOUR;
    const logs: SeedLog[] = Array.from({ length: 240 }, (_, i) => ({
      // Whole hours before the current one (closed, so in the rollups), none in the future.
      at: new Date(start + (i % 20) * HOUR + i * 1000),
      model: i % 3 ? "gpt-4o" : "gpt-4o-mini",
      source: i % 4 === 0 ? "internal" : i % 4 === 1 ? "report" : "gateway",
      internalKind: i % 4 === 0 ? (i % 8 === 0 ? "judge" : "evaluation") : null,
      statusCode: i % 10 === 3 ? 500 : 200,
      durationMs: 100 + i,
      inputTokens: 10 + (i % 5),
      outputTokens: 3,
      costUsd: 0.001 * (1 + (i % 3)),
    }));
    const seeded = await seedLogs(t, logs, p.projectId);
    const ctx = { ...systemCtx(t.deps, "test"), projectId: p.projectId };
    while ((await closeUsageHours(ctx, new Date(now))) > 0);
    const from = new Date(start - HOUR);
    const to = new Date(now + HOUR);
    const own = seeded.filter((l) => l.source === "internal");
    const app = seeded.filter((l) => l.source !== "internal");
    const sum = (ls: typeof seeded, f: (l: (typeof seeded)[number]) => number | null) => ls.reduce((s, l) => s + (f(l) ?? 0), 0);

    for (const [internal, mine] of [
      [false, app],
      [true, own],
    ] as const) {
      const input = { from, to, bucket: "day" as const, groupBy: "none" as const, filter: { internal } };
      // The rollups can answer (closed hours) ...
      expect(await usageFromRollups(ctx, { ...input, tagKey: null, classes: false })).not.toBeNull();
      const u = await logUsage(ctx, input);
      expect(u.totals.requests).toBe(mine.length);
      expect(u.totals.errors).toBe(mine.filter((l) => l.statusCode === 500).length);
      expect(u.totals.inputTokens).toBe(sum(mine, (l) => l.inputTokens));
      expect(u.totals.costUsd).toBeCloseTo(
        sum(mine, (l) => l.costUsd),
        9,
      );
      // ... and split by model too.
      const byModel = await logUsage(ctx, { ...input, groupBy: "model" });
      const want: Record<string, number> = {};
      for (const l of mine) want[l.model!] = (want[l.model!] ?? 0) + 1;
      expect(Object.fromEntries(byModel.groups.map((g) => [g.group, g.requests]))).toEqual(want);
    }

    // Split by source over every call: Hone's own are the group `internal`.
    const bySource = await logUsage(ctx, { from, to, bucket: "hour", groupBy: "source" });
    expect(bySource.groups.find((g) => g.group === "internal")?.requests).toBe(own.length);
    expect(bySource.totals.requests).toBe(seeded.length);

    // The console asks through tRPC.
    const trpc = trpcClient(t, p.apiKey);
    const viaTrpc = await trpc.logs.usage.query({ from: from.toISOString(), to: to.toISOString(), bucket: "day", filter: { internal: true } });
    expect(viaTrpc.totals.requests).toBe(own.length);
    const appViaTrpc = await trpc.logs.usage.query({ from: from.toISOString(), to: to.toISOString(), bucket: "day", filter: { internal: false } });
    expect(appViaTrpc.totals.requests).toBe(app.length);
  });
});
