// Where the CPU goes under load: per thread of Hone, Postgres, the upstream and wrk, in µs per call.
//   bun bench/cpu-split.ts [--seconds 8] [--connections 64] [--latency 0] [--endpoint chat|responses|messages] [--warmup 2] [--no-log]
// --endpoint responses / messages: a streamed Responses call to OpenAI / Messages call to Anthropic,
// passed through (the calls of bench/protocols.ts).
import { readdirSync, readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { BENCH_AUTH, BENCH_KEY, benchDatabase, CHAT_BODY, fmt, setBenchProviderKey, startFakeUpstream, startHone, wrk } from "./lib";

const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "8" },
    connections: { type: "string", default: "64" },
    latency: { type: "string", default: "0" },
    endpoint: { type: "string", default: "chat" },
    warmup: { type: "string", default: "2" },
    // op-log-request: false on every call: what logging costs, by difference.
    "no-log": { type: "boolean", default: false },
  },
});
const ENDPOINTS: Record<string, { path: string; body: unknown; headers: Record<string, string>; provider: "openai" | "anthropic" }> = {
  chat: { path: "/api/v1/chat/completions", body: CHAT_BODY, headers: BENCH_AUTH, provider: "openai" },
  responses: {
    path: "/api/v1/responses",
    body: { model: "openai:gpt-4o-mini", input: "What is the capital of France?", stream: true },
    headers: BENCH_AUTH,
    provider: "openai",
  },
  messages: {
    path: "/api/v1/messages",
    body: { model: "claude-sonnet-4-5", max_tokens: 64, messages: [{ role: "user", content: "What is the capital of France?" }], stream: true },
    headers: { "x-api-key": BENCH_KEY, "anthropic-version": "2023-06-01" },
    provider: "anthropic",
  },
};
const endpoint = ENDPOINTS[values.endpoint];
if (!endpoint) throw new Error(`--endpoint must be one of ${Object.keys(ENDPOINTS).join(", ")}`);
const TICK_US = 1e6 / 100;
const cpuOf = (statPath: string) => {
  try {
    const f = readFileSync(statPath, "utf8").split(") ")[1]!.split(" ");
    return (Number(f[11]) + Number(f[12])) * TICK_US;
  } catch {
    return 0;
  }
};
const comm = (p: string) => {
  try {
    return readFileSync(p, "utf8").trim();
  } catch {
    return "?";
  }
};
function snapshot(honePid: number, upstreamPid: number) {
  const m = new Map<string, number>();
  const add = (k: string, v: number) => m.set(k, (m.get(k) ?? 0) + v);
  for (const t of readdirSync(`/proc/${honePid}/task`)) {
    const name = Number(t) === honePid ? "hone:main" : `hone:${comm(`/proc/${honePid}/task/${t}/comm`)}`;
    add(name, cpuOf(`/proc/${honePid}/task/${t}/stat`));
  }
  for (const p of readdirSync("/proc")) {
    if (!/^\d+$/.test(p)) continue;
    const c = comm(`/proc/${p}/comm`);
    if (c === "postgres") add("postgres (all)", cpuOf(`/proc/${p}/stat`));
    else if (c === "wrk") add("wrk", cpuOf(`/proc/${p}/stat`));
    else if (Number(p) === upstreamPid) add("upstream", cpuOf(`/proc/${p}/stat`));
  }
  return m;
}
const db = await benchDatabase("postgres");
const up = await startFakeUpstream(Number(values.latency));
const upPid = Number(/:(\d+)$/.exec(up.url)![1]);
const hone = await startHone({ ...db.env, OPENAI_BASE_URL: `${up.url}/v1`, ANTHROPIC_BASE_URL: up.url });
try {
  await setBenchProviderKey(hone.url, endpoint.provider);
  const out = await new Response(Bun.spawn(["ss", "-ltnpH"], { stdout: "pipe" }).stdout).text();
  const upstreamPid = Number(new RegExp(`:${upPid}\\s.*pid=(\\d+)`).exec(out)?.[1] ?? 0);
  const { body } = endpoint;
  const auth = values["no-log"] ? { ...endpoint.headers, "op-log-request": "false" } : endpoint.headers;
  const url = `${hone.url}${endpoint.path}`;
  await wrk(url, body, auth, { connections: 8, seconds: Number(values.warmup) });
  const a = snapshot(hone.pid, upstreamPid);
  const r = await wrk(url, body, auth, {
    connections: Number(values.connections),
    seconds: Number(values.seconds),
    threads: 2,
  });
  const b = snapshot(hone.pid, upstreamPid);
  console.log(`req/s ${fmt(r.rps, 0)}  p50 ${fmt(r.p50)} p99 ${fmt(r.p99)}  errors ${r.errors}  calls ${r.requests}`);
  const rows = [...b].map(([k, v]) => [k, (v - (a.get(k) ?? 0)) / Math.max(1, r.requests)] as const).filter(([, v]) => v > 0.5);
  rows.sort((x, y) => y[1] - x[1]);
  let total = 0;
  for (const [k, v] of rows) {
    total += v;
    console.log(`${k.padEnd(28)} ${fmt(v, 1).padStart(8)} µs/call`);
  }
  console.log(`${"total".padEnd(28)} ${fmt(total, 1).padStart(8)} µs/call  (2 cores => max ${fmt(2e6 / total, 0)} req/s)`);
} finally {
  await hone.stop();
  up.stop();
  await db.cleanup();
}
process.exit(0);
