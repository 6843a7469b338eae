// Shared plumbing for benchmarks: child processes, wrk runs and their parsing.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import postgres from "postgres";
import type { Subprocess } from "bun";

export const ROOT = resolve(import.meta.dir, "..");
const children: Subprocess[] = [];
process.on("exit", () => {
  for (const c of children) c.kill("SIGKILL");
});

async function readUntil(proc: Subprocess<"ignore", "pipe", "pipe">, re: RegExp, timeoutMs = 60_000): Promise<RegExpExecArray> {
  const reader = proc.stdout.getReader();
  const dec = new TextDecoder();
  let out = "";
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const { done, value } = await reader.read();
    if (done) break;
    out += dec.decode(value);
    const m = re.exec(out);
    if (m) {
      // keep draining
      (async () => {
        for (;;) if ((await reader.read()).done) break;
      })();
      return m;
    }
  }
  // A caller that drains stderr itself has it already; the Response constructor throws on a locked stream.
  const stderr = proc.stderr.locked ? "(stderr handed to the caller)" : await new Response(proc.stderr).text();
  throw new Error(`process did not print ${re}: ${out}\n${stderr}`);
}

export async function startFakeUpstream(latencyMs: number): Promise<{ url: string; stop(): void }> {
  const proc = Bun.spawn(["bun", join(ROOT, "bench/fake-upstream.ts"), "0", String(latencyMs)], { stdout: "pipe", stderr: "pipe", stdin: "ignore" });
  children.push(proc);
  const m = await readUntil(proc, /"listening":(\d+)/);
  return { url: `http://127.0.0.1:${m[1]}`, stop: () => proc.kill() };
}

/** The bare Bun proxy of bench/bun-proxy.ts in front of an upstream. */
export async function startBunProxy(
  upstreamUrl: string,
  opts: { env?: Record<string, string>; onStderr?: (text: string) => void } = {},
): Promise<{ url: string; stop(): void }> {
  const proc = Bun.spawn(["bun", join(ROOT, "bench/bun-proxy.ts"), upstreamUrl], {
    env: { ...process.env, ...opts.env },
    stdout: "pipe",
    stderr: "pipe",
    stdin: "ignore",
  });
  children.push(proc);
  drain(proc.stderr, opts.onStderr);
  const m = await readUntil(proc, /"listening":(\d+)/);
  return { url: `http://127.0.0.1:${m[1]}/`, stop: () => proc.kill() };
}

export type Db = { name: "pglite" | "postgres"; env: Record<string, string>; cleanup(): Promise<void> };

export async function benchDatabase(kind: "pglite" | "postgres"): Promise<Db> {
  if (kind === "pglite") {
    const dir = mkdtempSync(join(tmpdir(), "hone-bench-"));
    return { name: "pglite", env: { HONE_DATA_DIR: dir }, cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const base = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
  const name = `hone_bench_${Date.now().toString(36)}`;
  const admin = postgres(base, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${name}"`);
  await admin.end();
  const url = new URL(base);
  url.pathname = `/${name}`;
  // Its own data directory: the durable log spool lives there.
  const dir = mkdtempSync(join(tmpdir(), "hone-bench-"));
  return {
    name: "postgres",
    env: { DATABASE_URL: url.toString(), HONE_SECRET_KEY: Buffer.alloc(32, 3).toString("base64"), HONE_DATA_DIR: dir },
    async cleanup() {
      const a = postgres(base, { max: 1, onnotice: () => {} });
      await a.unsafe(`drop database if exists "${name}" with (force)`);
      await a.end();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export const BENCH_KEY = "hone_sk_benchbenchbenchbenchbenchbench01";

/** The chat request the gateway benches send, and the header that authenticates it. */
export const CHAT_BODY = {
  model: "gpt-4o-mini",
  messages: [
    { role: "system", content: "Answer briefly." },
    { role: "user", content: "What is the capital of France?" },
  ],
};
export const BENCH_AUTH = { Authorization: `Bearer ${BENCH_KEY}` };

/** Stores the bench's OpenAI key in the bench project (through GraphQL, as a user would). */
export async function setBenchProviderKey(honeUrl: string, provider: "openai" | "anthropic" | "gemini" = "openai"): Promise<void> {
  const res = await fetch(`${honeUrl}/graphql`, {
    method: "POST",
    headers: { Authorization: `Bearer ${BENCH_KEY}`, "content-type": "application/json" },
    body: JSON.stringify({ query: `mutation { setProviderKey(input: {provider: "${provider}", apiKey: "sk-bench-upstream"}) { last4 } }` }),
  });
  const text = await res.text();
  if (!res.ok || text.includes('"errors"')) throw new Error(`setProviderKey failed: ${text}`);
}

function honeEnv(): Record<string, string> {
  return Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[0].startsWith("HONE_") && e[1] !== undefined));
}

export async function startHone(
  env: Record<string, string>,
  opts: { onLine?: (line: string) => void; onStderr?: (text: string) => void } = {},
): Promise<{ url: string; pid: number; stop(): Promise<void> }> {
  // HONE_BENCH_CPU_PROF=DIR: Hone runs under Bun's CPU profiler, which writes its profile (and a
  // Markdown summary) into DIR when Hone stops.
  const prof = process.env.HONE_BENCH_CPU_PROF;
  const flags = prof ? ["--cpu-prof", "--cpu-prof-md", `--cpu-prof-dir=${prof}`] : [];
  // A free port chosen here (not PORT=0), so the first answer of /health can be awaited at once.
  const port = Number(env.PORT ?? freePort());
  const proc = Bun.spawn(["bun", ...flags, join(ROOT, "src/index.ts")], {
    cwd: ROOT,
    // HONE_* variables of the bench's own environment reach Hone (e.g. HONE_ROUTE_CACHE_MS=60000 to try a setting).
    env: {
      PATH: process.env.PATH!,
      HOME: process.env.HOME ?? "/tmp",
      PORT: String(port),
      HONE_LOG_LEVEL: "warn",
      HONE_BOOTSTRAP_API_KEY: BENCH_KEY,
      ...honeEnv(),
      ...env,
    },
    stdout: "pipe",
    stderr: "pipe",
    stdin: "ignore",
  });
  children.push(proc);
  drain(proc.stderr, opts.onStderr);
  void (async () => {
    const reader = proc.stdout.getReader();
    const dec = new TextDecoder();
    let buf = "";
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      buf += dec.decode(value, { stream: true });
      let nl: number;
      while ((nl = buf.indexOf("\n")) >= 0) {
        opts.onLine?.(buf.slice(0, nl));
        buf = buf.slice(nl + 1);
      }
    }
  })();
  // Asked every 10 ms, so that a start time (bench/footprint.ts) is not rounded up by the polling.
  const url = `http://127.0.0.1:${port}`;
  const started = Date.now();
  for (;;) {
    if (Date.now() - started > 60_000 || proc.exitCode !== null) throw new Error(`hone did not start (exit ${proc.exitCode})`);
    try {
      if ((await fetch(`${url}/health`)).ok) break;
    } catch {}
    await Bun.sleep(10);
  }
  return {
    url,
    pid: proc.pid,
    async stop() {
      proc.kill("SIGTERM");
      await proc.exited;
    },
  };
}

/** Reads a child's stderr to the end (a full pipe would block it), handing the text to `onText`. */
function drain(stream: ReadableStream<Uint8Array>, onText?: (text: string) => void): void {
  void (async () => {
    const dec = new TextDecoder();
    for await (const chunk of stream) onText?.(dec.decode(chunk, { stream: true }));
  })();
}

/** A port nothing listens on now (the kernel's choice for port 0, released at once). */
function freePort(): number {
  const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = probe.port;
  probe.stop(true);
  return port;
}

export type WrkResult = { rps: number; p50: number; p75: number; p90: number; p99: number; errors: number; requests: number };

function ms(v: string): number {
  const m = /^([\d.]+)(us|ms|s)$/.exec(v.trim());
  if (!m) return NaN;
  const n = Number(m[1]);
  return m[2] === "us" ? n / 1000 : m[2] === "s" ? n * 1000 : n;
}

/** Runs wrk POSTing `body` to `url` and parses its latency distribution. */
export async function wrk(
  url: string,
  body: unknown,
  headers: Record<string, string>,
  opts: { connections: number; seconds: number; threads?: number },
): Promise<WrkResult> {
  const dir = mkdtempSync(join(tmpdir(), "hone-wrk-"));
  const script = join(dir, "post.lua");
  const lines = [`wrk.method = "POST"`, `wrk.body = ${JSON.stringify(JSON.stringify(body))}`, `wrk.headers["Content-Type"] = "application/json"`];
  for (const [k, v] of Object.entries(headers)) lines.push(`wrk.headers[${JSON.stringify(k)}] = ${JSON.stringify(v)}`);
  writeFileSync(script, `${lines.join("\n")}\n`);
  const threads = Math.min(opts.threads ?? 1, opts.connections);
  const proc = Bun.spawn(["wrk", `-t${threads}`, `-c${opts.connections}`, `-d${opts.seconds}s`, "--latency", "-s", script, url], {
    stdout: "pipe",
    stderr: "pipe",
  });
  const out = await new Response(proc.stdout).text();
  await proc.exited;
  rmSync(dir, { recursive: true, force: true });
  const pct = (p: string) => ms(new RegExp(`^\\s+${p}%\\s+(\\S+)`, "m").exec(out)?.[1] ?? "NaN");
  const errs = /Non-2xx or 3xx responses: (\d+)/.exec(out);
  const sockErr = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  return {
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? NaN),
    p50: pct("50"),
    p75: pct("75"),
    p90: pct("90"),
    p99: pct("99"),
    requests: Number(/(\d+) requests in/.exec(out)?.[1] ?? NaN),
    errors: Number(errs?.[1] ?? 0) + (sockErr ? sockErr.slice(1).reduce((a, b) => a + Number(b), 0) : 0),
  };
}

export const fmt = (n: number, digits = 2) => (Number.isFinite(n) ? n.toFixed(digits) : "n/a");
