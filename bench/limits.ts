// Limits benchmark: what a call pays for being checked against three limits (the project's, its
// key's, and its `user` tag value's: each with requests and tokens per minute and budgets per day
// and month, so twelve counters and the input tokenizer) against the same calls with no limit.
//
//   bun bench/limits.ts [--seconds 10] [--rounds 5] [--db postgres]
//
// One Hone process; a fake upstream (own process) answering after 20 ms for latency, an instant
// one for throughput. Rounds alternate: no limit, then the three limits (set and deleted through
// GraphQL between rounds, in alternating order; the process applies its own change at once). The caps are high enough
// that no call is refused: what is measured is the reservation and settlement themselves.
import { parseArgs } from "node:util";
import { BENCH_KEY, benchDatabase, fmt, setBenchProviderKey, startFakeUpstream, startHone, wrk, type WrkResult } from "./lib";

const { values } = parseArgs({
  options: { seconds: { type: "string", default: "10" }, rounds: { type: "string", default: "5" }, db: { type: "string", default: "postgres" } },
});
const seconds = Number(values.seconds);
const rounds = Number(values.rounds);
const dbs = values.db!.split(",") as ("pglite" | "postgres")[];
const body = {
  model: "gpt-4o-mini",
  max_tokens: 50,
  metadata: { user: "bench-user" },
  messages: [
    { role: "system", content: "Answer briefly." },
    { role: "user", content: "What is the capital of France?" },
  ],
};
const auth = { Authorization: `Bearer ${BENCH_KEY}` };
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

async function gql(url: string, query: string) {
  const res = await fetch(`${url}/graphql`, { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: JSON.stringify({ query }) });
  const out = (await res.json()) as { data?: any; errors?: unknown };
  if (out.errors) throw new Error(JSON.stringify(out.errors));
  return out.data;
}

const CAPS = "requestsPerMinute: 10000000, tokensPerMinute: 2000000000, costPerDayUsd: 100000000, costPerMonthUsd: 100000000";
async function setLimits(url: string): Promise<string[]> {
  const keyId = (await gql(url, `{ apiKeys { id } }`)).apiKeys[0].id;
  const ids: string[] = [];
  for (const subject of [`scope: "project"`, `scope: "key", keyId: "${keyId}"`, `scope: "tag", tagKey: "user"`]) {
    ids.push((await gql(url, `mutation { setLimit(input: {${subject}, ${CAPS}}) { id } }`)).setLimit.id);
  }
  return ids;
}
async function deleteLimits(url: string, ids: string[]) {
  for (const id of ids) await gql(url, `mutation { deleteLimit(id: "${id}") }`);
}

console.log(`# Hone limits benchmark: ${rounds} rounds of ${seconds}s per case, wrk on loopback, ${navigator.hardwareConcurrency} cores\n`);
const rows: string[] = [];
for (const kind of dbs) {
  const db = await benchDatabase(kind);
  const slow = await startFakeUpstream(20);
  const fast = await startFakeUpstream(0);
  try {
    for (const [upstream, label, c] of [
      [slow, "20 ms upstream", 32],
      [fast, "instant upstream", 64],
    ] as const) {
      const hone = await startHone({ ...db.env, OPENAI_BASE_URL: `${upstream.url}/v1` });
      await setBenchProviderKey(hone.url);
      // Warm: the JIT, and the tokenizer (loaded by the first limited call).
      let ids = await setLimits(hone.url);
      await wrk(`${hone.url}/api/v1/chat/completions`, body, auth, { connections: c, seconds: 5 });
      await deleteLimits(hone.url, ids);
      const none: WrkResult[] = [];
      const limited: WrkResult[] = [];
      for (let r = 0; r < rounds; r++) {
        // The order alternates, so that neither case is always measured second (a warmer process, a longer log table).
        const measure = () => wrk(`${hone.url}/api/v1/chat/completions`, body, auth, { connections: c, seconds });
        if (r % 2 === 0) {
          none.push(await measure());
          ids = await setLimits(hone.url);
          limited.push(await measure());
          await deleteLimits(hone.url, ids);
        } else {
          ids = await setLimits(hone.url);
          limited.push(await measure());
          await deleteLimits(hone.url, ids);
          none.push(await measure());
        }
        const n = none[r]!;
        const l = limited[r]!;
        console.log(
          `  ${kind} ${label} c=${c} round ${r + 1}: none ${fmt(n.p50)} / ${fmt(n.p99)} ms ${fmt(n.rps, 0)} req/s; limited ${fmt(l.p50)} / ${fmt(l.p99)} ms ${fmt(l.rps, 0)} req/s; refused or failed ${l.errors}`,
        );
      }
      const m = (rs: WrkResult[], f: (r: WrkResult) => number) => median(rs.map(f));
      const d50 = median(limited.map((l, i) => l.p50 - none[i]!.p50));
      const d99 = median(limited.map((l, i) => l.p99 - none[i]!.p99));
      rows.push(
        `| ${kind} | ${label} | ${c} | ${fmt(m(none, (r) => r.p50))} / ${fmt(m(none, (r) => r.p99))} | ${fmt(m(limited, (r) => r.p50))} / ${fmt(m(limited, (r) => r.p99))} | **${d50 >= 0 ? "+" : ""}${fmt(d50)} / ${d99 >= 0 ? "+" : ""}${fmt(d99)}** | ${fmt(
          m(none, (r) => r.rps),
          0,
        )} | ${fmt(
          m(limited, (r) => r.rps),
          0,
        )} | ${limited.reduce((a, r) => a + r.errors, 0)} |`,
      );
      console.log(rows.at(-1));
      await hone.stop();
    }
  } finally {
    slow.stop();
    fast.stop();
    await db.cleanup();
  }
}
console.log(`
Calls under three limits (project, key, user tag: 12 counters) against none (ms, p50 / p99; medians of ${rounds} rounds of ${seconds} s; the difference is the median of the rounds' differences):

| database | upstream | concurrency | no limit | three limits | added by limits | req/s, no limit | req/s, limited | errors (limited) |
|---|---|---|---|---|---|---|---|---|
${rows.join("\n")}`);
process.exit(0);
