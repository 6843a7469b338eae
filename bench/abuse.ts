// Each attack of issue 38 against a real Hone process, as one attacker holding a valid project key
// would send it: the answer's status, how long it took, how much the server's resident memory grew
// at its peak while answering, the slowest /health another client saw meanwhile, and whether the
// same process still serves (/health) afterwards.
//
//   bun bench/abuse.ts [--db pglite|postgres] [--only <part of an attack's name>]
//
// The server runs with HONE_BODY_IDLE_TIMEOUT_MS=5000 (so the stalled uploads are released in 5 s,
// not 30) and HONE_ALLOW_PRIVATE_UPSTREAMS=true (the "tenant's" provider is on loopback); every
// other limit is at its default.
import { BENCH_KEY, benchDatabase, startHone } from "./lib";

const argOf = (name: string) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);
const dbKind = (argOf("--db") ?? "pglite") as "pglite" | "postgres";
/** Runs only the attacks whose name contains one of these comma-separated texts (the setup always runs). */
const only = argOf("--only");
const ADMIN = "abuse-bench-admin-token-0123456789";
const MB = 1024 * 1024;

// ---------------------------------------------------------------- a tenant's provider, answering 300 MB
const HUGE_BYTES = 300 * MB;
const provider = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  idleTimeout: 0,
  async fetch(req) {
    await req.text();
    const head = new TextEncoder().encode(
      '{"id":"chatcmpl-huge","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"',
    );
    const tail = new TextEncoder().encode('"},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":75000000,"total_tokens":75000005}}');
    const piece = new TextEncoder().encode("abcdefgh".repeat(8192)); // 64 KiB
    let sent = 0;
    let stage = 0;
    return new Response(
      new ReadableStream({
        pull(c) {
          if (stage === 0) {
            c.enqueue(head);
            stage = 1;
          } else if (stage === 1) {
            c.enqueue(piece);
            sent += piece.length;
            if (sent >= HUGE_BYTES) stage = 2;
          } else if (stage === 2) {
            c.enqueue(tail);
            stage = 3;
          } else c.close();
        },
      }),
      { headers: { "content-type": "application/json" } },
    );
  },
});

// ---------------------------------------------------------------- the server
const db = await benchDatabase(dbKind);
const hone = await startHone({
  ...db.env,
  HONE_LOG_LEVEL: "error",
  HONE_ADMIN_TOKEN: ADMIN,
  HONE_ALLOW_PRIVATE_UPSTREAMS: "true",
  HONE_BODY_IDLE_TIMEOUT_MS: "5000",
});
const base = hone.url;
const auth = { authorization: `Bearer ${BENCH_KEY}` };

function rssMb(): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(require("node:fs").readFileSync(`/proc/${hone.pid}/status`, "utf8"));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

async function health(): Promise<string> {
  try {
    const r = await fetch(`${base}/health`, { signal: AbortSignal.timeout(5_000) });
    const b = (await r.json()) as { status: string; logQueue: { depth: number; oldestAgeMs: number | null; dropped: number } };
    return `${r.status} ${b.status}`;
  } catch (err) {
    return `no answer (${(err as Error).name})`;
  }
}

const gql = (query: string, variables: Record<string, unknown> = {}) =>
  fetch(`${base}/graphql`, { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: JSON.stringify({ query, variables }) });

/** Reads a response to its end, counting bytes (never holding them). */
async function drainBytes(res: Response): Promise<number> {
  let n = 0;
  for await (const c of res.body ?? []) n += (c as Uint8Array).byteLength;
  return n;
}

type Row = { attack: string; answer: string; seconds: string; peakGrowthMb: string; healthMs: string; serves: string };
const rows: Row[] = [];

async function measure(attack: string, run: () => Promise<string>): Promise<void> {
  if (only && !only.split(",").some((o) => attack.includes(o))) return;
  Bun.gc(true);
  await Bun.sleep(300);
  const before = rssMb();
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssMb());
  }, 20);
  // Another client asks /health all along: how long it waits says whether the attack holds up others.
  let polling = true;
  let slowest = 0;
  const poller = (async () => {
    while (polling) {
      const t0 = performance.now();
      await fetch(`${base}/health`, { signal: AbortSignal.timeout(60_000) }).then(
        (r) => r.arrayBuffer(),
        () => {},
      );
      slowest = Math.max(slowest, performance.now() - t0);
      await Bun.sleep(50);
    }
  })();
  const started = performance.now();
  let answer: string;
  try {
    answer = await run();
  } catch (err) {
    answer = `client error: ${(err as Error).message.slice(0, 80)}`;
  }
  const seconds = (performance.now() - started) / 1000;
  polling = false;
  await poller;
  clearInterval(sampler);
  peak = Math.max(peak, rssMb());
  const row = {
    attack,
    answer,
    seconds: seconds.toFixed(2),
    peakGrowthMb: String(Math.round(peak - before)),
    healthMs: String(Math.round(slowest)),
    serves: await health(),
  };
  rows.push(row);
  console.log(JSON.stringify(row));
}

// ---------------------------------------------------------------- setup
console.log(`abuse: ${dbKind}, server ${base}`);
const setupStarted = performance.now();
const custom = await (
  await gql(`mutation($u: String!) { createCustomProvider(input: {slug: "tenant", kind: "openai", baseUrl: $u}) { id } }`, {
    u: `http://127.0.0.1:${provider.port}/v1`,
  })
).json();
if ((custom as { errors?: unknown }).errors) throw new Error(`custom provider: ${JSON.stringify(custom)}`);

// 40 logs of about 1 MB.
const MB_TEXT = "lorem ipsum ".repeat(MB / 12);
for (let i = 0; i < 40; i++) {
  const r = await fetch(`${base}/api/v1/report`, {
    method: "POST",
    headers: { ...auth, "content-type": "application/json" },
    body: JSON.stringify({
      requestedAt: Date.now() - 5,
      receivedAt: Date.now(),
      statusCode: 200,
      reqPayload: { model: "gpt-4o-mini", messages: [{ role: "user", content: `${i} ${MB_TEXT}` }] },
      respPayload: { id: `c${i}`, choices: [{ index: 0, message: { role: "assistant", content: "ok" }, finish_reason: "stop" }] },
    }),
  });
  if (r.status !== 200) throw new Error(`report ${r.status}`);
}

async function newDataset(name: string): Promise<string> {
  const r = await fetch(`${base}/api/v1/datasets`, {
    method: "POST",
    headers: { ...auth, "content-type": "application/json" },
    body: JSON.stringify({ name }),
  });
  return ((await r.json()) as { id: string }).id;
}

/** A JSONL body of `n` lines of about `bytes` each, made as it is sent (little to compress). */
function jsonlStream(n: number, bytes: number): ReadableStream<Uint8Array> {
  let i = 0;
  const enc = new TextEncoder();
  return new ReadableStream({
    pull(c) {
      if (i >= n) return c.close();
      const filler = Buffer.from(crypto.getRandomValues(new Uint8Array(Math.floor(bytes / 2)))).toString("hex");
      c.enqueue(
        enc.encode(
          `${JSON.stringify({
            messages: [
              { role: "user", content: `${i} ${filler}` },
              { role: "assistant", content: "a" },
            ],
          })}\n`,
        ),
      );
      i++;
    },
  });
}

async function importJsonl(dataset: string, n: number, bytes: number): Promise<Response> {
  return fetch(`${base}/api/v1/datasets/${dataset}/import`, {
    method: "POST",
    headers: { ...auth, "content-type": "application/x-ndjson" },
    body: jsonlStream(n, bytes),
  });
}

const entries40 = await newDataset("40 entries of 2 MB");
const seeded = await importJsonl(entries40, 40, 2 * MB);
if (seeded.status !== 200) throw new Error(`seed import ${seeded.status}: ${await seeded.text()}`);
console.log(`setup: ${((performance.now() - setupStarted) / 1000).toFixed(1)} s, server RSS ${Math.round(rssMb())} MB`);

// ---------------------------------------------------------------- the attacks
const ds = await newDataset("target");
const multipart = (body: string, type: string) =>
  fetch(`${base}/api/v1/datasets/${ds}/import`, { method: "POST", headers: { ...auth, "content-type": type }, body }).then(
    async (r) => `${r.status} ${((await r.json()) as { code?: string }).code ?? ""}`,
  );

await measure("import: multipart cut short after its first line", () =>
  multipart('--XX\r\nContent-Disposition: form-data; name="file"; filename="a.jsonl"\r\n', "multipart/form-data; boundary=XX"),
);
await measure("import: multipart/form-data without boundary=", () => multipart("--XX\r\n", "multipart/form-data"));
await measure("import: empty body", () => multipart("", "application/x-ndjson"));

const doubling = (levels: number, leaf: string) => {
  const frags = [`fragment F0 on Query { ${leaf} }`];
  for (let i = 1; i <= levels; i++) frags.push(`fragment F${i} on Query { ...F${i - 1} ...F${i - 1} }`);
  return `query { ...F${levels} } ${frags.join(" ")}`;
};
const gqlAnswer = async (r: Response) => {
  const text = await r.text();
  try {
    const b = JSON.parse(text) as { errors?: { extensions?: { code?: string } }[] };
    return `${r.status} ${b.errors?.[0]?.extensions?.code ?? "data"} (${(text.length / MB).toFixed(1)} MB)`;
  } catch {
    return `${r.status} (${(text.length / MB).toFixed(1)} MB)`;
  }
};
await measure("GraphQL: 26 fragments doubling, leaf __typename", async () => gqlAnswer(await gql(doubling(26, "__typename"))));
await measure("GraphQL: 26 fragments doubling, leaf logs(first: 200)", async () =>
  gqlAnswer(await gql(doubling(26, "logs(first: 200) { edges { node { id } } }"))),
);
await measure("GraphQL: 15 aliases of logs(first: 200) with payloads (40 logs of 1 MB)", async () =>
  gqlAnswer(await gql(`{ ${Array.from({ length: 15 }, (_, i) => `a${i}: logs(first: 200) { edges { node { reqPayload respPayload } } }`).join(" ")} }`)),
);
await measure("tRPC: batch of 10 logs.exportPage({first: 200})", async () => {
  const input = encodeURIComponent(JSON.stringify(Object.fromEntries(Array.from({ length: 10 }, (_, i) => [i, { first: 200 }]))));
  const r = await fetch(`${base}/trpc/${Array.from({ length: 10 }, () => "logs.exportPage").join(",")}?batch=1&input=${input}`, { headers: auth });
  const text = await r.text();
  const lines = (JSON.parse(text) as { result?: { data: { lines: string[] } } }[]).reduce((n, x) => n + (x.result?.data.lines.length ?? 0), 0);
  return `${r.status}, ${lines} lines (${(text.length / MB).toFixed(1)} MB)`;
});
await measure("GraphQL: 15 aliases of dataset entries(first: 100) messages (40 entries of 2 MB)", async () =>
  gqlAnswer(
    await gql(
      `query($id: ID!) { ${Array.from({ length: 15 }, (_, i) => `a${i}: dataset(id: $id) { entries(first: 100) { edges { node { messages } } } }`).join(" ")} }`,
      { id: entries40 },
    ),
  ),
);
const big = await newDataset("390 MB");
await measure("REST: import a 390 MB JSONL (100 lines of 3.9 MB)", async () => {
  const r = await importJsonl(big, 100, 3.9e6);
  return `${r.status}, ${((await r.json()) as { entries_created: number }).entries_created} entries`;
});
await measure("REST: export the 390 MB dataset", async () => {
  const r = await fetch(`${base}/api/v1/datasets/${big}/export`, { headers: auth });
  return `${r.status}, ${((await drainBytes(r)) / MB) | 0} MB read`;
});
await measure("gateway: a tenant's provider answers 300 MB", async () => {
  const r = await fetch(`${base}/api/v1/chat/completions`, {
    method: "POST",
    headers: { ...auth, "content-type": "application/json" },
    body: JSON.stringify({ model: "hone:tenant/m", messages: [{ role: "user", content: "everything" }] }),
  });
  return `${r.status}, ${((await drainBytes(r)) / MB) | 0} MB passed on`;
});
await measure("gateway: the same 300 MB to a client that reads 20 MB, then stalls 3 s and leaves", async () => {
  const r = await fetch(`${base}/api/v1/chat/completions`, {
    method: "POST",
    headers: { ...auth, "content-type": "application/json" },
    body: JSON.stringify({ model: "hone:tenant/m", messages: [{ role: "user", content: "everything, slowly" }] }),
  });
  const reader = r.body!.getReader();
  let n = 0;
  while (n < 20 * MB) {
    const { done, value } = await reader.read();
    if (done) break;
    n += value.byteLength;
  }
  await Bun.sleep(3_000);
  await reader.cancel();
  return `${r.status}, ${(n / MB) | 0} MB read, then the client left`;
});
const deep = (n: number) => `${"[".repeat(n)}${"]".repeat(n)}`;
const deepObj = (n: number) => `${'{"a":'.repeat(n)}1${"}".repeat(n)}`;
const post = (path: string, body: string) =>
  fetch(`${base}/api/v1${path}`, { method: "POST", headers: { ...auth, "content-type": "application/json" }, body }).then((r) => `${r.status}`);
await measure("/report: reqPayload nested 100,000 deep", () =>
  post("/report", `{"requestedAt":${Date.now()},"receivedAt":${Date.now()},"statusCode":200,"reqPayload":${deep(100_000)},"respPayload":null}`),
);
await measure("/report-anthropic: tool_use input nested 100,000 deep", () =>
  post(
    "/report-anthropic",
    `{"statusCode":200,"reqPayload":{"model":"claude-3-5-haiku","max_tokens":1,"messages":[{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"f","input":${deepObj(100_000)}}]}]},"respPayload":null}`,
  ),
);
await measure("/report: usage.prompt_tokens 1e300 (then the usage total)", async () => {
  const status = await post(
    "/report",
    `{"statusCode":200,"reqPayload":{"model":"gpt-4o-mini","messages":[]},"respPayload":{"id":"x","choices":[],"usage":{"prompt_tokens":1e300,"completion_tokens":1,"total_tokens":1e300}}}`,
  );
  const from = new Date(Date.now() - 3_600_000).toISOString();
  const to = new Date(Date.now() + 3_600_000).toISOString();
  const u = (await (
    await gql(`query($f: String!, $t: String!) { usage(from: $f, to: $t, bucket: "hour") { totals { costUsd } } }`, { f: from, t: to })
  ).json()) as {
    data: { usage: { totals: { costUsd: number } } };
  };
  return `${status}, usage total $${u.data.usage.totals.costUsd.toFixed(4)}`;
});
await measure("tRPC session.signIn: 100 wrong tokens from one address", async () => {
  const seen = new Map<number, number>();
  for (let i = 0; i < 100; i++) {
    const r = await fetch(`${base}/trpc/session.signIn`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-hone-console": "1" },
      body: JSON.stringify({ token: `not-the-admin-token-${i}-0123456789` }),
    });
    seen.set(r.status, (seen.get(r.status) ?? 0) + 1);
  }
  return [...seen].map(([s, n]) => `${n} × ${s}`).join(", ");
});
await measure("300 uploads that send headers and one byte, then stall", async () => {
  const { port } = new URL(base);
  const statuses = new Map<string, number>();
  let closed = 0;
  await Promise.all(
    Array.from({ length: 300 }, async () => {
      let got = "";
      let done = false;
      const sock = await Bun.connect({
        hostname: "127.0.0.1",
        port: Number(port),
        socket: {
          data(_s, d) {
            got += new TextDecoder().decode(d);
          },
          close() {
            done = true;
          },
          error() {},
        },
      });
      sock.write(
        `POST /api/v1/datasets/${ds}/import HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${BENCH_KEY}\r\nContent-Type: application/x-ndjson\r\nContent-Length: 100000\r\n\r\n{`,
      );
      for (let i = 0; i < 400 && !done; i++) await Bun.sleep(50);
      const status = got.split(" ")[1] ?? "none";
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
      if (done) closed++;
      sock.end();
    }),
  );
  return `${[...statuses].map(([s, n]) => `${n} × ${s}`).join(", ")}; ${closed} closed by the server`;
});
await measure("browser pages: GraphiQL and /api/v1/docs framed?", async () => {
  const g = await fetch(`${base}/graphql`, { headers: { accept: "text/html" } });
  const d = await fetch(`${base}/api/v1/docs`);
  const ok = (r: Response) =>
    (r.headers.get("content-security-policy") ?? "").includes("frame-ancestors 'none'") && r.headers.get("x-frame-options") === "DENY";
  await g.text();
  await d.text();
  return `GraphiQL ${ok(g) ? "CSP + DENY" : "no CSP"}, docs ${ok(d) ? "CSP + DENY" : "no CSP"}`;
});

// ---------------------------------------------------------------- after everything
await Bun.sleep(1_000);
const after = await fetch(`${base}/health`);
console.log(`\n/health after every attack: ${after.status} ${await after.text()}; server RSS ${Math.round(rssMb())} MB`);
console.log(`\n| attack | answer | time (s) | peak RSS growth (MB) | slowest /health meanwhile (ms) | same process serves |\n|---|---|---:|---:|---:|---|`);
for (const r of rows) console.log(`| ${r.attack} | ${r.answer} | ${r.seconds} | ${r.peakGrowthMb} | ${r.healthMs} | ${r.serves} |`);

await hone.stop();
provider.stop(true);
await db.cleanup();
process.exit(0);
