import type { SpanAttributes } from "@opentelemetry/api";
import { newSpanId, newTraceId } from "./trace-context";

// Hone's own spans out (docs/traces.md): one span per gateway call, with the GenAI conventions'
// attributes, parented to the caller's trace, exported by OpenTelemetry's SDK to the collector of
// OTEL_EXPORTER_OTLP_ENDPOINT. The SDK runs on a thread of its own (./otel-export.thread.ts):
// the serving thread picks the span's ids (the log keeps them), queues the call and hands the
// queue over every few milliseconds; building the spans, batching, encoding and sending happen
// there. Both queues are bounded: past them spans are dropped, never waited for.

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

/** A call crossing to the thread: times in ms, its ids chosen here. */
export type QueuedSpan = Omit<CallSpan, "start" | "end"> & { startMs: number; endMs: number; traceId: string; spanId: string };

export type ExportThreadMessage =
  | { t: "init"; opts: SpanExportOptions }
  | { t: "spans"; spans: QueuedSpan[] }
  | { t: "flush"; ack: number }
  | { t: "shutdown"; ack: number };
export type ExportThreadReply = { ack: number };

export type SpanExport = {
  /** Records a finished call; answers the trace and span ids it was given (the log keeps them). */
  record(call: CallSpan): { traceId: string; spanId: string };
  shutdown(): Promise<void>;
  forceFlush(): Promise<void>;
};

/** Spans waiting here to cross to the thread at most (the thread's own queue is OpenTelemetry's 2,048). */
const MAX_QUEUE = 2_048;
/** How often the queue crosses to the thread. */
const HAND_OVER_MS = 20;

/** The longest a flush or the shutdown waits for the thread's answer. */
const ASK_DEADLINE_MS = 10_000;

/** `onFailed`: told once, when the thread fails or exits (spans are dropped from then on). */
export function createSpanExport(opts: SpanExportOptions, onFailed: (err: unknown) => void = () => {}): SpanExport {
  const thread = new Worker(new URL("./otel-export.thread.ts", import.meta.url).href);
  // The thread holds no promise of the process's life: an idle server may exit with it.
  (thread as unknown as { unref(): void }).unref();
  let queue: QueuedSpan[] = [];
  let timer: ReturnType<typeof setTimeout> | null = null;
  let dead = false;
  let seq = 0;
  const acks = new Map<number, () => void>();
  thread.onmessage = (event: MessageEvent<ExportThreadReply>) => {
    acks.get(event.data.ack)?.();
    acks.delete(event.data.ack);
  };
  let stopping = false;
  const die = (event?: Event) => {
    // Spans are telemetry: a thread that failed drops them; calls go on.
    if (dead) return;
    if (!stopping) onFailed((event as ErrorEvent | undefined)?.error ?? new Error("the span-export thread exited"));
    dead = true;
    queue = [];
    for (const done of acks.values()) done();
    acks.clear();
  };
  thread.onerror = die;
  thread.addEventListener("close", die);
  thread.postMessage({ t: "init", opts } satisfies ExportThreadMessage);

  const handOver = () => {
    if (timer) clearTimeout(timer);
    timer = null;
    if (!queue.length || dead) return;
    thread.postMessage({ t: "spans", spans: queue } satisfies ExportThreadMessage);
    queue = [];
  };
  const ask = (t: "flush" | "shutdown") => {
    handOver();
    if (dead) return Promise.resolve();
    const ack = ++seq;
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        acks.delete(ack);
        resolve();
      }, ASK_DEADLINE_MS);
      acks.set(ack, () => {
        clearTimeout(timer);
        resolve();
      });
      thread.postMessage({ t, ack } satisfies ExportThreadMessage);
    });
  };
  return {
    record(call) {
      const traceId = call.parent?.traceId ?? newTraceId();
      const spanId = newSpanId();
      if (!dead && queue.length < MAX_QUEUE) {
        queue.push({
          name: call.name,
          startMs: call.start.getTime(),
          endMs: call.end.getTime(),
          parent: call.parent,
          attributes: call.attributes,
          error: call.error,
          traceId,
          spanId,
        });
        timer ??= setTimeout(handOver, HAND_OVER_MS);
      }
      return { traceId, spanId };
    },
    async shutdown() {
      await ask("shutdown");
      stopping = true;
      thread.terminate();
    },
    forceFlush: () => ask("flush"),
  };
}
