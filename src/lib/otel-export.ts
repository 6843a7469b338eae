import { context, type Context, type SpanAttributes, SpanKind, SpanStatusCode, trace, TraceFlags, type Tracer } from "@opentelemetry/api";
import { OTLPTraceExporter as JsonExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { OTLPTraceExporter as ProtoExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BatchSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";

// Hone's own spans out (docs/traces.md): one span per gateway call, with the GenAI conventions'
// attributes, parented to the caller's trace, exported by OpenTelemetry's SDK to the collector of
// OTEL_EXPORTER_OTLP_ENDPOINT. The batch processor keeps a bounded queue (spans past it are
// dropped, never waited for) and exports on a timer, off every call's way.

export type SpanExportOptions = {
  url: string;
  headers: Record<string, string>;
  protocol: "http/protobuf" | "http/json";
  serviceName: string;
};

/** A call as its span tells it. */
export type CallSpan = {
  name: string;
  start: Date;
  end: Date;
  /** The caller's trace (traceparent), when it sent one. */
  parent: { traceId: string; spanId: string } | null;
  attributes: SpanAttributes;
  error: string | null;
};

export type SpanExport = {
  /** Records a finished call; answers the trace and span ids it was given (the log keeps them). */
  record(call: CallSpan): { traceId: string; spanId: string };
  shutdown(): Promise<void>;
  forceFlush(): Promise<void>;
};

/** Spans waiting to be exported at most (OpenTelemetry's default): past it a span is dropped. */
const MAX_QUEUE = 2_048;

export function createSpanExport(opts: SpanExportOptions): SpanExport {
  const exporter =
    opts.protocol === "http/json" ? new JsonExporter({ url: opts.url, headers: opts.headers }) : new ProtoExporter({ url: opts.url, headers: opts.headers });
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ "service.name": opts.serviceName }),
    spanProcessors: [new BatchSpanProcessor({ exporter, maxQueueSize: MAX_QUEUE, maxExportBatchSize: 512, scheduledDelayMillis: 1_000 })],
  });
  const tracer: Tracer = provider.getTracer("hone");
  return {
    record(call) {
      let parent: Context = context.active();
      if (call.parent) {
        parent = trace.setSpanContext(parent, { traceId: call.parent.traceId, spanId: call.parent.spanId, traceFlags: TraceFlags.SAMPLED, isRemote: true });
      }
      const span = tracer.startSpan(call.name, { kind: SpanKind.CLIENT, startTime: call.start, attributes: call.attributes }, parent);
      if (call.error) span.setStatus({ code: SpanStatusCode.ERROR, message: call.error.slice(0, 1_024) });
      span.end(call.end);
      const ids = span.spanContext();
      return { traceId: ids.traceId, spanId: ids.spanId };
    },
    shutdown: () => provider.shutdown(),
    forceFlush: () => provider.forceFlush(),
  };
}
