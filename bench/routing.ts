// Routing benchmark: what a route costs over a direct model string, and what a fallback adds after
// a failed attempt.
//
//   bun bench/routing.ts [--seconds 8] [--rounds 3] [--db postgres|pglite]
//
// A fake upstream (own process) answers after a fixed 20 ms. Overhead: wrk calls Hone with a plain
// model string and with `hone:bench`, a route of two groups (two weighted targets, then a
// fallback target; all healthy), in turn, `rounds` times, at concurrency 1 and 32; each figure is
// the median over the rounds. Fallback: at concurrency 1, a call whose model fails at once (HTTP
// 500, no retry) and falls back, against a call straight to the fallback's model and the failed
// attempt's own time (the upstream's 500, called directly).
import { parseArgs } from "node:util";
import { BENCH_KEY, benchDatabase, fmt, setBenchProviderKey, startFakeUpstream, startHone, wrk, type WrkResult } from "./lib";

const { values } = parseArgs({
  options: { seconds: { type: "string", default: "8" }, rounds: { type: "string", default: "3" }, db: { type: "string", default: "postgres" } },
});
const seconds = Number(values.seconds);
const rounds = Number(values.rounds);
const auth = { Authorization: `Bearer ${BENCH_KEY}` };
const ask = (model: string, extra: Record<string, unknown> = {}) => ({
  model,
  messages: [{ role: "user", content: "What is the capital of France?" }],
  ...extra,
});
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const med = (rs: WrkResult[], k: "p50" | "p99") => median(rs.map((r) => r[k]));

const db = await benchDatabase(values.db as "postgres" | "pglite");
const slow = await startFakeUpstream(20);
const rows: string[] = [];
try {
  const hone = await startHone({ ...db.env, OPENAI_BASE_URL: `${slow.url}/v1`, GEMINI_BASE_URL: `${slow.url}/v1`, HONE_RETRY_ATTEMPTS: "1" });
  await setBenchProviderKey(hone.url, "openai");
  await setBenchProviderKey(hone.url, "gemini");
  const made = await fetch(`${hone.url}/graphql`, {
    method: "POST",
    headers: { ...auth, "content-type": "application/json" },
    body: JSON.stringify({
      query: `mutation { createRoute(input: {slug: "bench", groups: [
        {targets: [{model: "openai:gpt-4o-mini", weight: 50, version: "a"}, {model: "gemini:gpt-4o-mini", weight: 50, version: "b"}]},
        {targets: [{model: "openai:gpt-4o", weight: 100}]}]}) { id } }`,
    }),
  });
  if ((await made.text()).includes('"errors"')) throw new Error("createRoute failed");
  const url = `${hone.url}/api/v1/chat/completions`;
  await wrk(url, ask("hone:bench"), auth, { connections: 32, seconds: 3 });
  await wrk(url, ask("gpt-4o-mini"), auth, { connections: 32, seconds: 3 });
  for (const c of [1, 32]) {
    const direct: WrkResult[] = [];
    const routed: WrkResult[] = [];
    for (let r = 0; r < rounds; r++) {
      direct.push(await wrk(url, ask("gpt-4o-mini"), auth, { connections: c, seconds }));
      routed.push(await wrk(url, ask("hone:bench"), auth, { connections: c, seconds }));
      console.log(`  c=${c} round ${r + 1}: route - direct ${fmt(routed[r]!.p50 - direct[r]!.p50, 3)} ms p50`);
    }
    const errors = [...direct, ...routed].reduce((a, r) => a + r.errors, 0);
    rows.push(
      `| ${db.name} | ${c} | ${fmt(med(direct, "p50"), 3)} / ${fmt(med(direct, "p99"))} | ${fmt(med(routed, "p50"), 3)} / ${fmt(med(routed, "p99"))} | **${fmt(med(routed, "p50") - med(direct, "p50"), 3)}** | ${errors} |`,
    );
    console.log(rows.at(-1));
  }

  const o = { connections: 1, seconds };
  const failing = await wrk(`${slow.url}/v1/chat/completions`, ask("fail-500"), {}, o);
  const straight = await wrk(url, ask("gemini:gpt-4o-mini"), auth, o);
  const fallback = await wrk(url, ask("fail-500", { hone: { fallbacks: ["gemini:gpt-4o-mini"] } }), auth, o);
  const added = fallback.p50 - straight.p50;
  console.log(`
Routing overhead (ms, p50 / p99, medians of ${rounds} rounds of ${seconds} s), upstream answering after 20 ms, every call logged:

| database | concurrency | direct model string | route hone:bench (two groups) | route - direct, p50 | errors |
|---|---|---|---|---|---|
${rows.join("\n")}

Fallback after a failed attempt (concurrency 1, p50 ms): the failed attempt alone (upstream 500, direct) ${fmt(failing.p50, 3)};
straight to the fallback's model ${fmt(straight.p50, 3)}; failing model then fallback ${fmt(fallback.p50, 3)}:
the fallback adds ${fmt(added, 3)} ms, of which ${fmt(added - failing.p50, 3)} ms beyond the failed attempt's own time (errors: ${failing.errors === failing.requests ? "all 500 as designed" : failing.errors}, ${straight.errors}, ${fallback.errors}).`);
  await hone.stop();
} finally {
  slow.stop();
  await db.cleanup();
}
process.exit(0);
