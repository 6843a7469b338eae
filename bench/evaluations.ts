// Evaluation throughput: entries judged per second against a fake upstream answering every call
// (generation and judging) after a fixed 50 ms, at the default concurrency (HONE_EVAL_CONCURRENCY=8),
// compared with the ideal wall time entries x calls-per-entry x 50 ms / concurrency.
//
//   bun bench/evaluations.ts [--entries 200] [--db pglite,postgres]
import { parseArgs } from "node:util";
import { BENCH_KEY, benchDatabase, fmt, startFakeUpstream, startHone } from "./lib";

const { values } = parseArgs({ options: { entries: { type: "string", default: "200" }, db: { type: "string", default: "pglite,postgres" } } });
const N = Number(values.entries);
const dbs = values.db!.split(",") as ("pglite" | "postgres")[];
const CONCURRENCY = 8;
const LATENCY = 50;
const headers = { authorization: `Bearer ${BENCH_KEY}`, "content-type": "application/json" };

const rows: string[] = [];
for (const kind of dbs) {
  const db = await benchDatabase(kind);
  const upstream = await startFakeUpstream(LATENCY);
  try {
    const hone = await startHone({ ...db.env, OPENAI_BASE_URL: `${upstream.url}/v1`, HONE_JOB_POLL_MS: "50" });
    const gql = async (query: string, variables: object = {}) =>
      (await (await fetch(`${hone.url}/graphql`, { method: "POST", headers, body: JSON.stringify({ query, variables }) })).json()) as any;
    await gql(`mutation { setProviderKey(input: {provider: "openai", apiKey: "sk-bench-upstream"}) { last4 } }`);
    const ds = ((await (await fetch(`${hone.url}/api/v1/datasets`, { method: "POST", headers, body: JSON.stringify({ name: "bench" }) })).json()) as any).id;
    for (let i = 0; i < N; i += 100) {
      const entries = Array.from({ length: Math.min(100, N - i) }, (_, k) => ({
        messages: [
          { role: "user", content: `question ${i + k}` },
          { role: "assistant", content: `answer ${i + k}` },
        ],
        split: "TEST",
      }));
      await fetch(`${hone.url}/api/v1/datasets/${ds}/entries`, { method: "POST", headers, body: JSON.stringify({ entries }) });
    }
    const crits: string[] = [];
    for (let i = 0; i < 2; i++)
      crits.push(
        (await gql(`mutation { createCriterion(input: {name: "c${i}", judgeModel: "openai:judge", prompt: "{{output}}"}) { id } }`)).data.createCriterion.id,
      );

    for (const [label, models, criteria, callsPerEntry] of [
      ["reference outputs, 2 criteria", ["dataset"], crits, 2],
      ["gpt-4o-mini + 1 criterion", ["gpt-4o-mini"], crits.slice(0, 1), 2],
    ] as const) {
      const started = performance.now();
      const ev = (
        await gql(`mutation($ds: ID!, $m: [String!]!, $c: [String!]!) { createEvaluation(input: {datasetId: $ds, models: $m, criterionIds: $c}) { id } }`, {
          ds,
          m: models,
          c: criteria,
        })
      ).data.createEvaluation;
      let status = "";
      while (status !== "DONE") {
        await Bun.sleep(50);
        status = (await gql(`query($id: ID!) { evaluation(id: $id) { status } }`, { id: ev.id })).data.evaluation.status;
        if (status === "ERROR" || status === "CANCELLED") throw new Error(status);
      }
      const seconds = (performance.now() - started) / 1000;
      // Judges of one entry run at once, so an entry costs (generation? + one judge round) x 50 ms.
      const rounds = models[0] === "dataset" ? 1 : 2;
      const ideal = (N * rounds * LATENCY) / CONCURRENCY / 1000;
      const formula = (N * callsPerEntry * LATENCY) / CONCURRENCY / 1000;
      rows.push(
        `| ${kind} | ${label} | ${N} | ${fmt(seconds, 2)} | ${fmt(N / seconds, 1)} | ${fmt((N * criteria.length) / seconds, 1)} | ${fmt(ideal, 2)} | ${fmt(formula, 2)} |`,
      );
      console.log(rows.at(-1));
    }
    await hone.stop();
  } finally {
    upstream.stop();
    await db.cleanup();
  }
}
console.log(`
Evaluations against an upstream answering after ${LATENCY} ms, concurrency ${CONCURRENCY}:

| database | run | entries | wall s | entries/s | verdicts/s | ideal s (judges of an entry in parallel) | target s (entries x calls x 50 ms / 8) |
|---|---|---|---|---|---|---|---|
${rows.join("\n")}`);
process.exit(0);
