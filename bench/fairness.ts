// Fairness benchmark: one project's burst of expensive GraphQL queries against another project's
// gateway calls and everyone's /health.
//
//   bun bench/fairness.ts [--db postgres] [--seconds 8] [--burst 50]
//
// Project A (the bench key) holds 200 datasets of 10 entries; its burst keeps `burst` queries of
// near the maximum cost in flight (`datasets(first: 200) { entries(first: 45) { ... } }`, 18,401 of
// HONE_GRAPHQL_MAX_COST's 20,000; 2,000 entries read and sent). Project B calls /chat/completions
// (a fake upstream answering at once, 4 at a time) while /health is polled every 5 ms. B's gateway
// latency and /health are measured idle, then during A's burst: once with the fair share at its
// defaults (4 running and 32 waiting per project and lane, a cost budget of 20,000 a second and
// 200,000 at once: past them A gets 429), once with all of it out of the way, each in a fresh
// server on the same database.
import { parseArgs } from "node:util";
import { BENCH_KEY, benchDatabase, fmt, setBenchProviderKey, startFakeUpstream, startHone } from "./lib";

const { values } = parseArgs({
  options: { db: { type: "string", default: "postgres" }, seconds: { type: "string", default: "8" }, burst: { type: "string", default: "50" } },
});
const seconds = Number(values.seconds);
const burst = Number(values.burst);
const ADMIN = "fairness-bench-admin-token-0123456789";
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]! : Number.NaN;
};
const post = (url: string, key: string, body: unknown) =>
  fetch(url, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: JSON.stringify(body) });

const db = await benchDatabase(values.db as "pglite" | "postgres");
const upstream = await startFakeUpstream(0);
const rows: string[] = [];
let projectB = "";
try {
  for (const [label, env] of [
    ["fair share on (defaults)", {}],
    [
      "fair share off",
      { HONE_PROJECT_CONCURRENCY: "1024", HONE_PROJECT_QUEUE: "10000", HONE_PROJECT_COST_PER_SECOND: "100000000", HONE_PROJECT_COST_BURST: "100000000" },
    ],
  ] as const) {
    const hone = await startHone({ ...db.env, OPENAI_BASE_URL: `${upstream.url}/v1`, HONE_ADMIN_TOKEN: ADMIN, ...env });
    try {
      if (!projectB) {
        await setBenchProviderKey(hone.url);
        // Project A's data: 200 datasets of 10 entries.
        for (let i = 0; i < 200; i++) {
          const ds = (await (await post(`${hone.url}/api/v1/datasets`, BENCH_KEY, { name: `fair-${i}` })).json()) as { id: string };
          const entries = Array.from({ length: 10 }, (_, j) => ({
            messages: [
              { role: "user", content: `question ${i}.${j} ${"lorem ipsum ".repeat(10)}` },
              { role: "assistant", content: `answer ${i}.${j}` },
            ],
          }));
          await post(`${hone.url}/api/v1/datasets/${ds.id}/entries`, BENCH_KEY, { entries });
        }
        const made = (await (await post(`${hone.url}/graphql`, ADMIN, { query: `mutation { createProject(name: "b") { apiKey } }` })).json()) as {
          data: { createProject: { apiKey: string } };
        };
        projectB = made.data.createProject.apiKey;
        await post(`${hone.url}/graphql`, projectB, { query: `mutation { setProviderKey(input: {provider: "openai", apiKey: "sk-bench-b"}) { last4 } }` });
      }
      const query = `{ datasets(first: 200) { id name entries(first: 45) { edges { node { id messages } } } } }`;
      const probe = await (await post(`${hone.url}/graphql`, BENCH_KEY, { query })).json();
      if ((probe as { errors?: unknown }).errors) throw new Error(`the burst's query is refused: ${JSON.stringify(probe)}`);

      /** B's gateway latencies and /health latencies over `seconds`, with `during` running. */
      const measure = async () => {
        const gateway: number[] = [];
        const health: number[] = [];
        const until = Date.now() + seconds * 1000;
        const caller = async () => {
          while (Date.now() < until) {
            const t0 = performance.now();
            const r = await post(`${hone.url}/api/v1/chat/completions`, projectB, { model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] });
            await r.arrayBuffer();
            if (r.status === 200) gateway.push(performance.now() - t0);
          }
        };
        const poller = async () => {
          while (Date.now() < until) {
            const t0 = performance.now();
            await (await fetch(`${hone.url}/health`)).arrayBuffer();
            health.push(performance.now() - t0);
            await Bun.sleep(5);
          }
        };
        await Promise.all([caller(), caller(), caller(), caller(), poller()]);
        return { gateway, health };
      };
      // Warm, then idle figures.
      await measure();
      const idle = await measure();
      // A's burst: `burst` queries in flight until B is measured.
      let stop = false;
      const statuses: Record<number, number> = {};
      const attacker = async () => {
        while (!stop) {
          const r = await post(`${hone.url}/graphql`, BENCH_KEY, { query });
          await r.arrayBuffer();
          statuses[r.status] = (statuses[r.status] ?? 0) + 1;
          if (r.status === 429) await Bun.sleep(Number(r.headers.get("retry-after") ?? 1) * 1000);
        }
      };
      const attackers = Array.from({ length: burst }, attacker);
      await Bun.sleep(500);
      const loaded = await measure();
      stop = true;
      await Promise.all(attackers);
      const row = (name: string, xs: number[], base: number[]) =>
        `| ${label} | ${name} | ${fmt(pct(base, 50))} / ${fmt(pct(base, 99))} | ${fmt(pct(xs, 50))} / ${fmt(pct(xs, 99))} | **${fmt(pct(xs, 99) / pct(base, 99), 2)}x** | ${xs.length} |`;
      rows.push(row("B's gateway call", loaded.gateway, idle.gateway), row("/health", loaded.health, idle.health));
      rows.push(
        `| ${label} | A's queries answered | | ${Object.entries(statuses)
          .map(([s, n]) => `${n} x ${s}`)
          .join(", ")} | | |`,
      );
      console.log(rows.slice(-3).join("\n"));
    } finally {
      await hone.stop();
    }
  }
  console.log(`
Project B and /health while project A keeps ${burst} near-maximum-cost GraphQL queries in flight (${values.db}, ${seconds} s each, ms):

| server | measured | idle p50 / p99 | during A's burst p50 / p99 | p99 during / idle | samples |
|---|---|---|---|---|---|
${rows.join("\n")}`);
} finally {
  upstream.stop();
  await db.cleanup();
}
process.exit(0);
