// Online evaluation benchmark: what judging a sample of a model's calls adds to those calls.
//
//   bun bench/online-eval.ts [--seconds 8] [--rounds 8] [--db postgres] [--rate 0.1] [--connections 1,8]
//
// One Hone, one fake upstream answering after a fixed 20 ms (its judge answers too). Two models
// are called by wrk in turn, each round in the other order (ABBA): `openai:plain` (no online
// evaluation) and `openai:evaluated` (an online evaluation judging `rate` of its calls with one
// criterion). The added latency is evaluated minus plain, p50 and p99, the median of the rounds;
// the verdicts stored meanwhile are counted at the end (the sample it took).
import { parseArgs } from "node:util";
import { BENCH_KEY, benchDatabase, fmt, setBenchProviderKey, startFakeUpstream, startHone, wrk, type WrkResult } from "./lib";

const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "8" },
    rounds: { type: "string", default: "8" },
    db: { type: "string", default: "postgres" },
    rate: { type: "string", default: "0.1" },
    connections: { type: "string", default: "1,8" },
  },
});
const seconds = Number(values.seconds);
const rounds = Number(values.rounds);
const rate = Number(values.rate);
const auth = { Authorization: `Bearer ${BENCH_KEY}` };
const body = (model: string) => ({ model, messages: [{ role: "user", content: "What is the capital of France?" }] });
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const signed = (d: number, digits = 3) => `${d >= 0 ? "+" : ""}${fmt(d, digits)}`;

async function gql<T>(url: string, query: string, variables: Record<string, unknown> = {}): Promise<T> {
  const res = await fetch(`${url}/graphql`, {
    method: "POST",
    headers: { ...auth, "content-type": "application/json" },
    body: JSON.stringify({ query, variables }),
  });
  const json = (await res.json()) as { data?: T; errors?: unknown };
  if (json.errors || !json.data) throw new Error(`GraphQL failed: ${JSON.stringify(json.errors)}`);
  return json.data;
}

const db = await benchDatabase(values.db as "pglite" | "postgres");
const upstream = await startFakeUpstream(20);
const rows: string[] = [];
try {
  const hone = await startHone({ ...db.env, OPENAI_BASE_URL: `${upstream.url}/v1` });
  await setBenchProviderKey(hone.url);
  const crit = await gql<{ createCriterion: { id: string } }>(
    hone.url,
    `mutation { createCriterion(input: {name: "bench", judgeModel: "openai:judge", prompt: "Is this right? {{output}}"}) { id } }`,
  );
  const made = await gql<{ createOnlineEval: { id: string } }>(
    hone.url,
    `mutation($input: CreateOnlineEvalInput!) { createOnlineEval(input: $input) { id } }`,
    { input: { model: "openai:evaluated", criteria: [crit.createCriterion.id], sampleRate: rate } },
  );
  console.log(`# online evaluation bench: ${values.db}, sample rate ${rate}, ${rounds} rounds of ${seconds} s per model, upstream 20 ms\n`);
  // Warm both paths (the JIT, the online evaluations read into memory).
  await wrk(`${hone.url}/api/v1/chat/completions`, body("openai:plain"), auth, { connections: 8, seconds: 3 });
  await wrk(`${hone.url}/api/v1/chat/completions`, body("openai:evaluated"), auth, { connections: 8, seconds: 3 });
  const judgedSoFar = async () =>
    (
      await gql<{ onlineEval: { judged: number; passRate: number | null } }>(hone.url, `query($id: ID!) { onlineEval(id: $id) { judged passRate } }`, {
        id: made.createOnlineEval.id,
      })
    ).onlineEval;
  await Bun.sleep(2_000);
  const before = (await judgedSoFar()).judged;
  let evaluatedCalls = 0;
  for (const c of values.connections!.split(",").map(Number)) {
    const plain: WrkResult[] = [];
    const evaluated: WrkResult[] = [];
    for (let r = 0; r < rounds; r++) {
      const o = { connections: c, seconds };
      // Each round in the other order (ABBA), so a warmer or quieter second half favours neither.
      const call = (model: string) => wrk(`${hone.url}/api/v1/chat/completions`, body(model), auth, o);
      if (r % 2 === 0) {
        plain.push(await call("openai:plain"));
        evaluated.push(await call("openai:evaluated"));
      } else {
        evaluated.push(await call("openai:evaluated"));
        plain.push(await call("openai:plain"));
      }
      evaluatedCalls += evaluated[r]!.requests;
      console.log(
        `  c=${c} round ${r + 1}: evaluated - plain p50 ${signed(evaluated[r]!.p50 - plain[r]!.p50)} ms, p99 ${signed(evaluated[r]!.p99 - plain[r]!.p99)} ms`,
      );
    }
    const p50 = median(plain.map((x) => x.p50));
    const e50 = median(evaluated.map((x) => x.p50));
    const p99 = median(plain.map((x) => x.p99));
    const e99 = median(evaluated.map((x) => x.p99));
    const added50 = median(evaluated.map((x, i) => x.p50 - plain[i]!.p50));
    const added99 = median(evaluated.map((x, i) => x.p99 - plain[i]!.p99));
    const errors = [...plain, ...evaluated].reduce((a, x) => a + x.errors, 0);
    rows.push(`| ${c} | ${fmt(p50, 3)} / ${fmt(p99, 3)} | ${fmt(e50, 3)} / ${fmt(e99, 3)} | **${signed(added50)}** / ${signed(added99)} | ${errors} |`);
    console.log(rows.at(-1));
  }
  // The sample it took (judgements still in flight finish first).
  await Bun.sleep(3_000);
  const after = await judgedSoFar();
  const judged = after.judged - before;
  await hone.stop();
  console.log(`
Latency of the evaluated model's calls against the plain model's (ms, p50 / p99, medians of ${rounds} rounds), sample rate ${rate}:

| concurrency | plain | evaluated | added (median of rounds) | errors |
|---|---|---|---|---|
${rows.join("\n")}

Sample taken: ${judged} of the ${evaluatedCalls} measured calls judged (${fmt((100 * judged) / Math.max(1, evaluatedCalls), 2)} %), pass rate ${after.passRate}.`);
} finally {
  upstream.stop();
  await db.cleanup();
}
process.exit(0);
