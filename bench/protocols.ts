// The latency Hone adds on the streamed Responses API (to OpenAI) and Messages API (to Anthropic),
// both passed through, over calling the same upstream directly and over a bare Bun proxy.
//
//   bun bench/protocols.ts [--seconds 10] [--rounds 3] [--db postgres]
//
// A fake upstream (own process) answers each stream after a fixed 20 ms. In one run, wrk calls it
// directly, through the bare proxy (bench/bun-proxy.ts, which passes the stream on as it arrives)
// and through Hone, at concurrency 1 and 32, every Hone call logged; each figure is the median of
// the rounds. Time to first byte (when the first event reaches the client) is measured by a
// client of its own, one request at a time.
import { parseArgs } from "node:util";
import { BENCH_KEY, benchDatabase, fmt, setBenchProviderKey, startBunProxy, startFakeUpstream, startHone, wrk, type WrkResult } from "./lib";

const { values } = parseArgs({
  options: { seconds: { type: "string", default: "10" }, rounds: { type: "string", default: "3" }, db: { type: "string", default: "postgres" } },
});
const seconds = Number(values.seconds);
const rounds = Number(values.rounds);
const kind = values.db as "pglite" | "postgres";

const CASES = [
  {
    name: "POST /responses, stream (to OpenAI)",
    upstreamPath: "/v1/responses",
    honePath: "/api/v1/responses",
    body: { model: "openai:gpt-4o-mini", input: "What is the capital of France?", stream: true },
    directBody: { model: "gpt-4o-mini", input: "What is the capital of France?", stream: true },
    headers: { Authorization: `Bearer ${BENCH_KEY}` } as Record<string, string>,
  },
  {
    name: "POST /messages, stream (to Anthropic)",
    upstreamPath: "/v1/messages",
    honePath: "/api/v1/messages",
    body: { model: "claude-sonnet-4-5", max_tokens: 64, messages: [{ role: "user", content: "What is the capital of France?" }], stream: true },
    directBody: { model: "claude-sonnet-4-5", max_tokens: 64, messages: [{ role: "user", content: "What is the capital of France?" }], stream: true },
    headers: { "x-api-key": BENCH_KEY, "anthropic-version": "2023-06-01" } as Record<string, string>,
  },
];

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const med = (rs: WrkResult[]) => ({
  p50: median(rs.map((r) => r.p50)),
  p99: median(rs.map((r) => r.p99)),
  rps: median(rs.map((r) => r.rps)),
  errors: rs.reduce((a, r) => a + r.errors, 0),
});
const signed = (d: number) => `${d >= 0 ? "+" : ""}${fmt(d)}`;

/** Time to the first byte of the body, p50 and p99 over `n` requests one at a time. */
async function ttfb(url: string, body: unknown, headers: Record<string, string>, n: number) {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
    const reader = res.body!.getReader();
    await reader.read();
    times.push(performance.now() - t0);
    while (!(await reader.read()).done) {}
  }
  const s = times.sort((a, b) => a - b);
  return { p50: s[Math.floor(n / 2)]!, p99: s[Math.min(n - 1, Math.floor(n * 0.99))]! };
}

const db = await benchDatabase(kind);
const upstream = await startFakeUpstream(20);
const rows: string[] = [];
const firstBytes: string[] = [];
try {
  const hone = await startHone({ ...db.env, OPENAI_BASE_URL: `${upstream.url}/v1`, ANTHROPIC_BASE_URL: upstream.url });
  await setBenchProviderKey(hone.url, "openai");
  await setBenchProviderKey(hone.url, "anthropic");
  for (const c of CASES) {
    const proxy = await startBunProxy(`${upstream.url}${c.upstreamPath}`);
    const direct = `${upstream.url}${c.upstreamPath}`;
    const via = `${hone.url}${c.honePath}`;
    await wrk(via, c.body, c.headers, { connections: 32, seconds: 3 });
    for (const conns of [1, 32]) {
      const o = { connections: conns, seconds };
      const d: WrkResult[] = [];
      const p: WrkResult[] = [];
      const h: WrkResult[] = [];
      for (let r = 0; r < rounds; r++) {
        d.push(await wrk(direct, c.directBody, {}, o));
        p.push(await wrk(proxy.url, c.directBody, {}, o));
        h.push(await wrk(via, c.body, c.headers, o));
      }
      const [dm, pm, hm] = [med(d), med(p), med(h)];
      rows.push(
        `| ${c.name} | ${conns} | ${fmt(dm.p50)} / ${fmt(dm.p99)} | ${fmt(pm.p50)} / ${fmt(pm.p99)} | ${fmt(hm.p50)} / ${fmt(hm.p99)} | **${signed(hm.p50 - dm.p50)} / ${signed(hm.p99 - dm.p99)}** | ${signed(hm.p50 - pm.p50)} / ${signed(hm.p99 - pm.p99)} | ${fmt(hm.rps, 0)} | ${hm.errors} |`,
      );
      console.log(rows.at(-1));
    }
    const [td, tp, th] = [await ttfb(direct, c.directBody, {}, 200), await ttfb(proxy.url, c.directBody, {}, 200), await ttfb(via, c.body, c.headers, 200)];
    firstBytes.push(
      `| ${c.name} | ${fmt(td.p50)} / ${fmt(td.p99)} | ${fmt(tp.p50)} / ${fmt(tp.p99)} | ${fmt(th.p50)} / ${fmt(th.p99)} | **${signed(th.p50 - td.p50)} / ${signed(th.p99 - td.p99)}** |`,
    );
    console.log(firstBytes.at(-1));
    proxy.stop();
  }
  await hone.stop();
} finally {
  upstream.stop();
  await db.cleanup();
}
console.log(`
Streamed, passed through (ms, p50 / p99, medians of ${rounds} rounds of ${seconds} s; ${kind}; every Hone call logged; upstream answering after 20 ms):

| endpoint | concurrency | direct | bare Bun proxy | Hone | Hone - direct | Hone - bare proxy | Hone req/s | errors |
|---|---|---|---|---|---|---|---|---|
${rows.join("\n")}

Time to first byte (ms, p50 / p99, 200 requests one at a time):

| endpoint | direct | bare Bun proxy | Hone | Hone - direct |
|---|---|---|---|---|
${firstBytes.join("\n")}`);
process.exit(0);
