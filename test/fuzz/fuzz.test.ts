import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fc from "fast-check";
import { createTestApp, serve, type TestApp } from "../helpers/app";
import { fuzzEnv, healthMs, logCount, poolsOf, seedProject, send, snapshot, startHealthyUpstream, violation, type Keys, type Seeded } from "./harness";
import { allTargets, type FuzzRequest, type Target } from "./targets";

// A bounded fuzz run over every REST route, GraphQL root field and tRPC procedure (enumerated from
// the code), against a real server on the test database: no 5xx, errors in each transport's
// contract, /health answering, nothing seeded lost. bench/fuzz.ts runs the same at 100,000
// requests. A failure prints fast-check's seed and the request; replay it with
// HONE_FUZZ_SEED=<seed> bun test test/fuzz/fuzz.test.ts (the default seed is fixed, so CI is
// deterministic).

const SEED = Number(process.env.HONE_FUZZ_SEED ?? 16_016);
const RUNS: Record<Target["transport"], number> = { rest: 600, graphql: 600, trpc: 600, raw: 150 };

let t: TestApp;
let upstream: ReturnType<typeof startHealthyUpstream>;
let server: { url: string; stop(): Promise<void> };
let keys: Keys;
let own: Seeded;
let victim: Seeded;
let targets: Target[];
let before: { own: unknown; victim: unknown; ownLogs: number; victimLogs: number };

beforeAll(async () => {
  upstream = startHealthyUpstream();
  t = await createTestApp({ env: { ...fuzzEnv(upstream.url), HONE_LOG_LEVEL: "error" } });
  server = serve(t.app);
  const victimProject = await t.createProject("victim");
  keys = { project: t.project.apiKey, victim: victimProject.apiKey };
  own = await seedProject(server.url, keys.project, upstream.url, "own");
  victim = await seedProject(server.url, keys.victim, upstream.url, "victim");
  targets = allTargets(poolsOf(own, victim, upstream.url));
  before = {
    own: await snapshot(server.url, keys.project, own, false),
    victim: await snapshot(server.url, keys.victim, victim, true),
    ownLogs: await logCount(server.url, keys.project),
    victimLogs: await logCount(server.url, keys.victim),
  };
}, 60_000);

afterAll(async () => {
  await server?.stop();
  await upstream?.stop();
  await t?.close();
});

/** The server's error lines for one request, to show next to a failing case. */
function loggedFor(requestId: string | null): string[] {
  return requestId ? t.logLines.filter((l) => l.includes(requestId) && l.includes(`"level":"error"`)).map((l) => l.slice(0, 600)) : [];
}

async function fuzz(transport: Target["transport"]): Promise<void> {
  const mine = targets.filter((x) => x.transport === transport);
  expect(mine.length).toBeGreaterThan(0);
  await fc.assert(
    fc.asyncProperty(fc.oneof(...mine.map((x) => x.arbitrary)), async (req: FuzzRequest) => {
      const o = await send(server.url, req, keys, 20_000);
      const problem = violation(req, o);
      if (problem) {
        const logged = "error" in o ? [] : loggedFor(o.requestId);
        throw new Error(`${req.target}: ${problem}\n  request: ${req.describe()}${logged.length ? `\n  server logged: ${logged.join("\n  ")}` : ""}`);
      }
    }),
    { seed: SEED, numRuns: RUNS[transport], endOnFailure: true },
  );
  expect(await healthMs(server.url)).toBeLessThan(5_000);
}

describe("fuzzing with hostile values", () => {
  test("every route, field and procedure is a target", () => {
    const names = targets.map((x) => x.name);
    expect(names).toContain("POST /report");
    expect(names).toContain("mutation addDatasetEntries");
    expect(names).toContain("trpc datasets.addEntries");
    expect(targets.filter((x) => x.transport === "rest").length).toBeGreaterThanOrEqual(19);
  });

  test("REST routes answer hostile requests without a 5xx, in the error envelope", () => fuzz("rest"), 60_000);
  test("GraphQL fields answer hostile operations without a 5xx or an INTERNAL error", () => fuzz("graphql"), 60_000);
  test("tRPC procedures answer hostile calls and batches without an INTERNAL error", () => fuzz("trpc"), 60_000);
  test("unknown paths, methods and encodings answer in the error envelope", () => fuzz("raw"), 30_000);

  test("nothing stored before the fuzzing was lost, and the other project was not touched", async () => {
    expect(await snapshot(server.url, keys.victim, victim, true)).toEqual(before.victim);
    expect(await snapshot(server.url, keys.project, own, false)).toEqual(before.own);
    expect(await logCount(server.url, keys.project)).toBeGreaterThanOrEqual(before.ownLogs);
    expect(await logCount(server.url, keys.victim)).toBeGreaterThanOrEqual(before.victimLogs);
    expect(await healthMs(server.url)).toBeLessThan(5_000);
  }, 30_000);
});
