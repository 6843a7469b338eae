import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Hone, startHone } from "./harness";

// The harness itself: the seed reaches the database through the real routes and reads back whole.
let hone: Hone;
beforeAll(async () => {
  hone = await startHone();
}, 120_000);
afterAll(async () => {
  await hone?.stop();
});

describe("browser harness", () => {
  test("seeds a few hundred calls over the gateway and both report routes", () => {
    const s = hone.seeded!;
    console.log(JSON.stringify(s, null, 1));
    expect(s.logs).toBe(s.sent.total);
    expect(s.sent.total).toBe(300);
    expect(s.bySource.gateway).toBe(s.sent.gateway);
    expect(s.bySource.report).toBe(s.sent.report);
    expect(s.bySource["report-anthropic"]).toBe(s.sent.reportAnthropic);
    expect(Object.keys(s.byPromptId).sort()).toEqual(["p1", "p2", "p3", "p4", "p5"]);
    expect(Object.keys(s.byUser)).toHaveLength(20);
    expect(s.cacheHits).toBeGreaterThan(0);
    expect(s.costUsd).toBeGreaterThan(0);
    expect(Object.keys(s.byStatus).length).toBeGreaterThanOrEqual(4);
    expect(s.project2.logs).toBe(4);
  });
});
