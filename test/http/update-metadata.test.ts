import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { MAX_TAGS, TAG_UPDATE_BATCH } from "../../src/core/limits";
import { createTestApp, type TestApp } from "../helpers/app";
import { logsOf, seedLogs } from "../helpers/logs";
import { rest, type Rest } from "../helpers/rest";

// REST update-metadata changes the matching logs in batches (no one long transaction) and never
// leaves a log with more than MAX_TAGS tags, as the console's tag editing does.
let t: TestApp;
let api: Rest;
beforeAll(async () => {
  t = await createTestApp();
  api = rest(t);
});
afterAll(() => t.close());

describe("update-metadata", () => {
  test("more matching logs than one batch: every one is changed, and the count says so", async () => {
    const n = TAG_UPDATE_BATCH + 37;
    await seedLogs(
      t,
      Array.from({ length: n }, (_, i) => ({ tags: { run: "bulk", i: String(i) } })),
    );
    await seedLogs(t, [{ tags: { run: "other" } }]);
    const r = await api.ok("POST /logs/update-metadata", {
      body: { filters: [{ field: "metadata.run", equals: "bulk" }], metadata: { reviewed: "yes", i: null } },
    });
    expect(r).toEqual({ matchedLogs: n });
    const logs = await logsOf(t);
    const bulk = logs.filter((l) => (l.tags as Record<string, string>).run === "bulk");
    expect(bulk).toHaveLength(n);
    expect(bulk.every((l) => JSON.stringify(l.tags) === JSON.stringify({ run: "bulk", reviewed: "yes" }))).toBe(true);
    expect(logs.find((l) => (l.tags as Record<string, string>).run === "other")!.tags).toEqual({ run: "other" });
  });

  test("a change that would give a log more than MAX_TAGS tags is refused whole, nothing changed", async () => {
    const full = Object.fromEntries(Array.from({ length: MAX_TAGS - 1 }, (_, i) => [`k${i}`, "v"]));
    await seedLogs(t, [{ tags: { ...full, batch: "cap" } }, { tags: { batch: "cap" } }]);
    const before = (await logsOf(t)).filter((l) => (l.tags as Record<string, string>).batch === "cap");
    const refused = await api.fail("POST /logs/update-metadata", {
      body: { filters: [{ field: "metadata.batch", equals: "cap" }], metadata: { extra: "1", more: "2" } },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toContain(`more than ${MAX_TAGS} tags`);
    expect(refused.body.issues[0]!.path).toEqual(["metadata"]);
    const after = (await logsOf(t)).filter((l) => (l.tags as Record<string, string>).batch === "cap");
    expect(after.map((l) => l.tags)).toEqual(before.map((l) => l.tags));
    // Replacing a key it has keeps it at the cap: accepted.
    const ok = await api.ok("POST /logs/update-metadata", { body: { filters: [{ field: "metadata.batch", equals: "cap" }], metadata: { k0: "w" } } });
    expect(ok.matchedLogs).toBe(2);
  });

  test("an empty change matches and leaves the logs as they were", async () => {
    await seedLogs(t, [{ tags: { batch: "empty" } }]);
    const r = await api.ok("POST /logs/update-metadata", { body: { filters: [{ field: "metadata.batch", equals: "empty" }], metadata: {} } });
    expect(r.matchedLogs).toBe(1);
    expect((await logsOf(t)).find((l) => (l.tags as Record<string, string>).batch === "empty")!.tags).toEqual({ batch: "empty" });
  });
});
