// The span-export thread (./otel-export.ts): builds each queued call's span with the ids the
// serving thread chose, and exports them through OpenTelemetry's SDK (a batch processor with a
// bounded queue, a batch a second). Messages in: init (first), spans, flush, shutdown; out: {ack}
// when a flush or the shutdown is done.
import { type Context, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, TraceFlags } from "@opentelemetry/api";
import { OTLPTraceExporter as JsonExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { OTLPTraceExporter as ProtoExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BatchSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import type { ExportThreadMessage, ExportThreadReply, QueuedSpan } from "./otel-export";

declare const self: Worker;

/** Spans waiting to be exported at most (OpenTelemetry's default): past it a span is dropped. */
const MAX_QUEUE = 2_048;

/** The ids of the span being started: the ones the serving thread chose (and its log keeps). */
let next: { traceId: string; spanId: string } = { traceId: "", spanId: "" };
let provider: TracerProvider | null = null;

function start(opts: Extract<ExportThreadMessage, { t: "init" }>["opts"]): void {
  const exporter =
    opts.protocol === "http/json" ? new JsonExporter({ url: opts.url, headers: opts.headers }) : new ProtoExporter({ url: opts.url, headers: opts.headers });
  provider = new TracerProvider({
    resource: resourceFromAttributes({ "service.name": opts.serviceName }),
    idGenerator: { generateTraceId: () => next.traceId, generateSpanId: () => next.spanId },
    spanProcessors: [new BatchSpanProcessor({ exporter, maxQueueSize: MAX_QUEUE, maxExportBatchSize: 512, scheduledDelayMillis: 1_000 })],
  });
}

function build(s: QueuedSpan): void {
  const tracer = provider!.getTracer("hone");
  let parent: Context = ROOT_CONTEXT;
  if (s.parent) parent = trace.setSpanContext(parent, { traceId: s.parent.traceId, spanId: s.parent.spanId, traceFlags: TraceFlags.SAMPLED, isRemote: true });
  next = { traceId: s.traceId, spanId: s.spanId };
  const span = tracer.startSpan(s.name, { kind: SpanKind.CLIENT, startTime: s.startMs, attributes: s.attributes }, parent);
  if (s.error) span.setStatus({ code: SpanStatusCode.ERROR, message: s.error.slice(0, 1_024) });
  span.end(s.endMs);
}

const reply = (m: ExportThreadReply) => self.postMessage(m);

self.onmessage = async (event: MessageEvent<ExportThreadMessage>) => {
  const m = event.data;
  if (m.t === "init") start(m.opts);
  else if (!provider) return;
  else if (m.t === "spans") for (const s of m.spans) build(s);
  else if (m.t === "flush") {
    await provider.forceFlush().catch(() => {});
    reply({ ack: m.ack });
  } else if (m.t === "shutdown") {
    await provider.shutdown().catch(() => {});
    reply({ ack: m.ack });
  }
};
