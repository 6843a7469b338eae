import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq, sql } from "drizzle-orm";
import { systemCtx } from "../../src/domain/context";
import { evaluationResults, jobs } from "../../src/db/schema";
import { createDeps } from "../../src/compose";
import { claimJob, enqueueJob, failAbandonedJobs, renewJobLease } from "../../src/domain/jobs";
import { startJobs } from "../../src/background";
import { startWorker, type JobHandler, type Worker } from "../../src/background/worker";
import { createLogger } from "../../src/core/logger";
import { createTestApp, storeProviderKey, testConfig, type TestApp } from "../helpers/app";
import { createCriterion, createDataset, qa } from "../helpers/factories";
import { startFakeOpenAI, type FakeUpstream } from "../helpers/fake-upstreams";
import { waitFor } from "../helpers/wait-for";
import { gqlData } from "../helpers/gql";

/** An evaluation of `model` over one TEST entry, judged by one criterion. */
async function evaluationOf(name: string, model: string): Promise<string> {
  const datasetId = await createDataset(t, { name, entries: [qa("q", "a", "TEST")] });
  const crit = await createCriterion(t, { name: "c", judgeModel: "openai:judge", prompt: "ok? {{output}}" });
  const made = await gqlData<{ createEvaluation: { id: string } }>(
    t,
    "mutation($ds: ID!, $m: [String!]!, $c: [String!]!) { createEvaluation(input: {datasetId: $ds, models: $m, criterionIds: $c}) { id } }",
    { ds: datasetId, m: [model], c: [crit.id] },
  );
  return made.createEvaluation.id;
}
let t: TestApp;
let fake: FakeUpstream;

beforeAll(async () => {
  fake = startFakeOpenAI();
  const env = { OPENAI_BASE_URL: `${fake.url}/v1`, HONE_JOB_POLL_MS: "20" };
  // Below what the environment accepts (1 s), to keep the suite fast.
  t = await createTestApp({ env, deps: { config: { ...testConfig(env), jobStepTimeoutMs: 300, jobLeaseMs: 300 } } });
  await storeProviderKey(t, "openai", "sk-job-deadline-0001");
});
afterAll(async () => {
  await fake.stop();
  await t.close();
});

const ctx = () => systemCtx(t.deps, "test");
const jobRow = async (id: string) => (await t.deps.database.db.select().from(jobs).where(eq(jobs.id, id)))[0]!;
let kindSeq = 0;
const newKind = (name: string) => `test-${name}-${Date.now()}-${kindSeq++}`;

/** waitFor with the awaited thing named first (5 s by default). */
const until = <T>(what: string, check: () => Promise<T | null | undefined | false>, timeoutMs = 5000) =>
  waitFor(check, { message: what, timeoutMs }) as Promise<T>;

async function withWorkers<T>(workers: Worker[], body: () => Promise<T>): Promise<T> {
  try {
    return await body();
  } finally {
    await Promise.all(workers.map((w) => w.stop()));
  }
}

describe("job step deadline", () => {
  test("a step that overruns HONE_JOB_STEP_TIMEOUT_MS is failed, its signal aborted, and the worker takes the next job", async () => {
    const slow = newKind("slow");
    const quick = newKind("quick");
    let sawAbort = false;
    const handlers: Record<string, JobHandler> = {
      // Ignores its signal and never returns: the worker must move on regardless.
      [slow]: {
        run: (_deps, _payload, _job, signal) => {
          signal.addEventListener("abort", () => (sawAbort = true));
          return new Promise(() => {});
        },
      },
      [quick]: { run: async () => ({ done: true }) },
    };
    const slowId = await enqueueJob(ctx(), { kind: slow, payload: {}, maxAttempts: 1 });
    const quickId = await enqueueJob(ctx(), { kind: quick, payload: {}, runAt: new Date(Date.now() + 50) });
    const worker = startWorker(t.deps, handlers, { pollMs: 20 });
    await withWorkers([worker], async () => {
      const failed = await until("the slow job failing", async () => {
        const j = await jobRow(slowId);
        return j.status === "failed" && j;
      });
      expect(failed.lastError).toBe("the step ran longer than 300 ms (HONE_JOB_STEP_TIMEOUT_MS)");
      expect(failed.lockedBy).toBeNull();
      expect(sawAbort).toBe(true);
      await until("the next job running", async () => (await jobRow(quickId)).status === "done");
    });
  });

  test("an overrun step with attempts left is retried later, with the reason kept", async () => {
    const kind = newKind("retry");
    let runs = 0;
    const id = await enqueueJob(ctx(), { kind, payload: {}, maxAttempts: 3 });
    const worker = startWorker(
      t.deps,
      {
        [kind]: {
          run: (_d, _p, _j, signal) => {
            runs++;
            return new Promise((_, reject) => signal.addEventListener("abort", () => reject(new Error("stopped"))));
          },
        },
      },
      { pollMs: 20 },
    );
    await withWorkers([worker], async () => {
      const queued = await until("the job being queued again", async () => {
        const j = await jobRow(id);
        return j.status === "queued" && j.attempts === 1 && j;
      });
      expect(queued.lastError).toContain("ran longer than 300 ms");
      expect(queued.runAt.getTime()).toBeGreaterThan(Date.now());
    });
    expect(runs).toBe(1);
  });

  test("an evaluation step over its deadline aborts its model calls and stores no result for them", async () => {
    const ev = await evaluationOf("deadline", "hang");
    const abortedBefore = fake.aborted;
    const worker = startJobs(t.deps, { pollMs: 20 });
    await withWorkers([worker], async () => {
      await until("the step overrunning", async () => {
        const [j] = await t.deps.database.db.select().from(jobs).where(eq(jobs.kind, "evaluation"));
        return j?.lastError?.includes("ran longer than 300 ms");
      });
    });
    // The hanging upstream call was aborted with the step, not left to HONE_UPSTREAM_TIMEOUT_MS.
    await until("the upstream call being aborted", async () => fake.aborted > abortedBefore);
    expect(await t.deps.database.db.select().from(evaluationResults).where(eq(evaluationResults.evaluationId, ev))).toEqual([]);
  });
});

describe("job lease", () => {
  test("a step longer than the lease keeps it renewed: a second worker does not take the job", async () => {
    const kind = newKind("long");
    const runs: string[] = [];
    const leases: number[] = [];
    const handler: JobHandler = {
      run: async (_deps, _payload, job) => {
        runs.push(job.id);
        // 900 ms: three leases of 300 ms. The step timeout is raised for this worker below.
        for (let i = 0; i < 6; i++) {
          await Bun.sleep(150);
          leases.push((await jobRow(job.id)).lockedUntil!.getTime());
        }
        return { done: true };
      },
    };
    const id = await enqueueJob(ctx(), { kind, payload: {} });
    const first = startWorker(t.deps, { [kind]: handler }, { pollMs: 20, stepTimeoutMs: 10_000 });
    await until("the first worker taking the job", async () => runs.length === 1);
    // A second process's worker on the same database, polling fast.
    const deps2 = createDeps({ config: t.deps.config, database: t.db.database, logger: createLogger("silent"), secretKey: t.deps.secretKey });
    const second = startWorker(deps2, { [kind]: handler }, { pollMs: 20, stepTimeoutMs: 10_000 });
    await withWorkers([first, second], async () => {
      await until("the job finishing", async () => (await jobRow(id)).status === "done");
    });
    expect(runs).toEqual([id]);
    expect((await jobRow(id)).attempts).toBe(1);
    // The lease moved forward while the step ran.
    expect(leases.at(-1)!).toBeGreaterThan(leases[0]!);
  });

  test("only the holder renews a lease", async () => {
    const kind = newKind("renew");
    const id = await enqueueJob(ctx(), { kind, payload: {} });
    await claimJob(ctx(), { workerId: "holder", kinds: [kind], leaseMs: 60_000 });
    expect(await renewJobLease(ctx(), { id, workerId: "someone-else", leaseMs: 60_000 })).toBe(false);
    expect(await renewJobLease(ctx(), { id, workerId: "holder", leaseMs: 120_000 })).toBe(true);
    expect((await jobRow(id)).lockedUntil!.getTime()).toBeGreaterThan(Date.now() + 100_000);
  });
});

describe("a job whose worker keeps stopping", () => {
  test("after maxAttempts claims whose lease ran out it is failed, not claimed again", async () => {
    let now = Date.now();
    const deps = createDeps({
      config: t.deps.config,
      database: t.db.database,
      logger: createLogger("silent"),
      secretKey: t.deps.secretKey,
      clock: () => new Date(now),
    });
    const c = systemCtx(deps, "test");
    const kind = newKind("crash");
    const id = await enqueueJob(c, { kind, payload: {}, maxAttempts: 2 });
    for (const worker of ["dies-1", "dies-2"]) {
      expect((await claimJob(c, { workerId: worker, kinds: [kind], leaseMs: 1000 }))?.id).toBe(id);
      now += 1001; // the worker died: its lease runs out
    }
    expect(await claimJob(c, { workerId: "next", kinds: [kind], leaseMs: 1000 })).toBeNull();
    const failed = await failAbandonedJobs(c, { kinds: [kind] });
    expect(failed.map((j) => j.id)).toEqual([id]);
    expect(await jobRow(id)).toMatchObject({
      status: "failed",
      lockedBy: null,
      lastError: "the worker stopped 2 times while running this job (it crashed or was killed before finishing a step)",
    });
    // Each abandoned job is reported once.
    expect(await failAbandonedJobs(c, { kinds: [kind] })).toEqual([]);
  });

  test("the worker fails it and what it worked on shows the error (an evaluation goes to ERROR)", async () => {
    const ev = await evaluationOf("crashes", "gpt-4o-mini");
    // As if workers had claimed it maxAttempts times and died each time.
    const [job] = await t.deps.database.db.select().from(jobs).where(sql`${jobs.payload}->>'evaluationId' = ${ev}`);
    await t.deps.database.db
      .update(jobs)
      .set({ status: "running", attempts: job!.maxAttempts, lockedBy: "dead", lockedUntil: new Date(Date.now() - 1000) })
      .where(eq(jobs.id, job!.id));
    const worker = startJobs(t.deps, { pollMs: 20 });
    const shown = await withWorkers([worker], () =>
      until("the evaluation showing the failure", async () => {
        const e = (await gqlData(t, "query($id: ID!) { evaluation(id: $id) { status errorMessage } }", { id: ev })).evaluation;
        return e.status === "ERROR" && e;
      }),
    );
    expect(shown.errorMessage).toBe(
      `The evaluation stopped: the worker stopped ${job!.maxAttempts} times while running this job (it crashed or was killed before finishing a step)`,
    );
    expect(await jobRow(job!.id)).toMatchObject({ status: "failed", attempts: job!.maxAttempts });
    expect(await t.deps.database.db.select().from(evaluationResults).where(eq(evaluationResults.evaluationId, ev))).toEqual([]);
  });
});
