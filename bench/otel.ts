// OTLP ingest benchmark: spans a second the receiver stores with a realistic mix, and what ingest
// does to the gateway's latency while it runs.
//
//   bun bench/otel.ts [--seconds 8] [--db postgres] [--senders 4] [--batch 200]
//
// The mix: agent runs of five spans (an agent's span, two model calls with 1-4 KB of messages in
// the GenAI conventions' attributes, a tool's execution, a retrieval), sent as OTLP/HTTP protobuf
// batches by `senders` concurrent exporters. The gateway is measured with wrk at concurrency 4
// against a fake upstream answering after 20 ms: alone, then while ingest runs. Then ingest alone.
import { parseArgs } from "node:util";
import { encodeExportRequest } from "../src/lib/otlp/decode";
import { BENCH_AUTH, BENCH_KEY, CHAT_BODY, benchDatabase, fmt, setBenchProviderKey, startFakeUpstream, startHone, wrk } from "./lib";

const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "8" },
    db: { type: "string", default: "postgres" },
    senders: { type: "string", default: "4" },
    batch: { type: "string", default: "200" },
  },
});
const seconds = Number(values.seconds);
const senders = Number(values.senders);
const batchSpans = Number(values.batch);

const hex = (bytes: number) => Buffer.from(crypto.getRandomValues(new Uint8Array(bytes)));
const attr = (key: string, v: string | number) => ({ key, value: typeof v === "number" ? { intValue: String(v) } : { stringValue: v } });
const words = "the order shipped yesterday and should arrive within three business days please check tracking ".repeat(40);

/** One agent run: five spans, two of them model calls with 1-4 KB of messages. */
function run(now: number) {
  const traceId = hex(16);
  const agent = hex(8);
  const ns = (ms: number) => String(BigInt(Math.round(now + ms)) * 1_000_000n);
  const span = (parent: Buffer | null, name: string, at: number, attributes: ReturnType<typeof attr>[]) => ({
    traceId,
    spanId: hex(8),
    ...(parent ? { parentSpanId: parent } : {}),
    name,
    kind: 1,
    startTimeUnixNano: ns(at),
    endTimeUnixNano: ns(at + 50),
    attributes,
  });
  const chat = (at: number) => {
    const text = words.slice(0, 1000 + Math.floor(Math.random() * 3000));
    return span(agent, "chat gpt-4o-mini", at, [
      attr("gen_ai.operation.name", "chat"),
      attr("gen_ai.provider.name", "openai"),
      attr("gen_ai.request.model", "gpt-4o-mini"),
      attr("gen_ai.usage.input_tokens", 400),
      attr("gen_ai.usage.output_tokens", 60),
      attr("session.id", `s-${traceId.toString("hex").slice(0, 6)}`),
      attr("gen_ai.input.messages", JSON.stringify([{ role: "user", parts: [{ type: "text", content: text }] }])),
      attr("gen_ai.output.messages", JSON.stringify([{ role: "assistant", parts: [{ type: "text", content: text.slice(0, 400) }] }])),
    ]);
  };
  return [
    {
      traceId,
      spanId: agent,
      name: "invoke_agent support",
      kind: 1,
      startTimeUnixNano: ns(0),
      endTimeUnixNano: ns(400),
      attributes: [attr("gen_ai.operation.name", "invoke_agent")],
    },
    chat(10),
    span(agent, "execute_tool find_order", 100, [attr("gen_ai.operation.name", "execute_tool"), attr("gen_ai.tool.name", "find_order")]),
    span(agent, "retrieve documents", 160, [attr("db.system", "pgvector")]),
    chat(220),
  ];
}

function batch(): Buffer {
  const spans = [];
  const now = Date.now();
  while (spans.length < batchSpans) spans.push(...run(now));
  return Buffer.from(
    encodeExportRequest({
      resourceSpans: [{ resource: { attributes: [attr("service.name", "bench-agent")] }, scopeSpans: [{ scope: { name: "bench" }, spans }] }],
    }),
  );
}

/**
 * Batches made before a phase (an application's exporters run on its own machines: making them
 * here, during the phase, would take the CPU the receiver is measured on). Each span is new.
 */
const made = (n: number) => Array.from({ length: n }, batch);

/** Senders posting the batches until `until` or they run out; the spans the receiver accepted, and the failures. */
async function ingest(url: string, until: number, batches: Buffer[]): Promise<{ spans: number; failed: number; bytes: number; ranOut: boolean }> {
  let spans = 0;
  let failed = 0;
  let bytes = 0;
  await Promise.all(
    Array.from({ length: senders }, async () => {
      while (Date.now() < until) {
        const body = batches.pop();
        if (!body) return;
        const res = await fetch(`${url}/api/v1/otel/v1/traces`, {
          method: "POST",
          headers: { "content-type": "application/x-protobuf", "x-hone-key": BENCH_KEY },
          body: new Uint8Array(body),
        });
        await res.arrayBuffer();
        if (res.status === 200) {
          spans += batchSpans;
          bytes += body.byteLength;
        } else failed++;
      }
    }),
  );
  return { spans, failed, bytes, ranOut: batches.length === 0 };
}

const db = await benchDatabase(values.db as "pglite" | "postgres");
const upstream = await startFakeUpstream(20);
const hone = await startHone({ ...db.env, OPENAI_BASE_URL: `${upstream.url}/v1` });
try {
  await setBenchProviderKey(hone.url);
  // Warm both paths.
  // Enough batches for 10,000 spans a second in each phase.
  const perPhase = Math.ceil((10_000 * seconds) / batchSpans);
  await ingest(hone.url, Date.now() + 1_000, made(10));
  await wrk(`${hone.url}/api/v1/chat/completions`, CHAT_BODY, BENCH_AUTH, { connections: 4, seconds: 2 });

  let batches = made(perPhase);
  const idle = await wrk(`${hone.url}/api/v1/chat/completions`, CHAT_BODY, BENCH_AUTH, { connections: 4, seconds });
  const until = Date.now() + seconds * 1_000;
  const [busy, during] = await Promise.all([
    wrk(`${hone.url}/api/v1/chat/completions`, CHAT_BODY, BENCH_AUTH, { connections: 4, seconds }),
    ingest(hone.url, until, batches),
  ]);
  batches = made(perPhase);
  const alone = await ingest(hone.url, Date.now() + seconds * 1_000, batches);

  console.log(
    `# OTLP ingest: ${db.name}, ${seconds} s per phase, ${senders} senders of ${batchSpans}-span protobuf batches (40% model calls with 1-4 KB of messages), ${navigator.hardwareConcurrency} cores shared by everything\n`,
  );
  console.log("| phase | spans/s ingested | MB/s | failed batches | gateway p50 ms | gateway p99 ms | gateway calls/s |");
  console.log("|---|---|---|---|---|---|---|");
  console.log(`| gateway alone | - | - | - | ${fmt(idle.p50)} | ${fmt(idle.p99)} | ${fmt(idle.rps, 0)} |`);
  console.log(
    `| gateway while ingesting | ${fmt(during.spans / seconds, 0)} | ${fmt(during.bytes / seconds / 1e6, 1)} | ${during.failed} | ${fmt(busy.p50)} | ${fmt(busy.p99)} | ${fmt(busy.rps, 0)} |`,
  );
  console.log(`| ingest alone | ${fmt(alone.spans / seconds, 0)} | ${fmt(alone.bytes / seconds / 1e6, 1)} | ${alone.failed} | - | - | - |`);
  console.log(`\ngateway p99 while ingesting: ${fmt((busy.p99 / idle.p99 - 1) * 100, 0)}% over alone`);
} finally {
  await hone.stop();
  upstream.stop();
  await db.cleanup();
}
