import type { Ctx } from "../context";
import type { Config } from "../../core/config";
import { errorFields, type Logger } from "../../core/logger";
import { createSpanExport, type SpanExport } from "../../lib/otel-export";
import { newSpanId } from "../../lib/trace-context";
import type { NewRequestLog } from "../logs";

// Where a gateway call sits in a trace, and its span out (docs/traces.md): with
// OTEL_EXPORTER_OTLP_ENDPOINT set, each call is a span exported by OpenTelemetry's SDK, its ids
// the log's; without, a call in the caller's trace gets a span id of its own, nothing is sent.

const exports = new WeakMap<Config, SpanExport | null>();

function spanExportOf(config: Config, logger: Logger): SpanExport | null {
  let e = exports.get(config);
  if (e === undefined) {
    e = config.otelExport
      ? createSpanExport(config.otelExport, (err) => logger.error("the span-export thread failed: Hone's own spans are no longer exported", errorFields(err)))
      : null;
    exports.set(config, e);
  }
  return e;
}

/** How long a shutdown waits for the collector to take what is queued (a collector away drops them). */
const SHUTDOWN_WAIT_MS = 2_000;

/** Sends what is queued and stops (the server's shutdown), waiting SHUTDOWN_WAIT_MS at most. */
export async function closeSpanExport(config: Config): Promise<void> {
  const e = exports.get(config);
  exports.delete(config);
  if (!e) return;
  await Promise.race([e.shutdown().catch(() => {}), Bun.sleep(SHUTDOWN_WAIT_MS)]);
}

/** Sends what is queued now (tests, benches). */
export async function flushSpanExport(config: Config): Promise<void> {
  await exports.get(config)?.forceFlush();
}

const W3C_TRACE = /^[0-9a-f]{32}$/;

/** The log's trace fields, and its span exported when export is on. */
export function traceCall(ctx: Ctx, row: NewRequestLog): void {
  const trace = ctx.trace;
  const out = spanExportOf(ctx.deps.config, ctx.deps.logger);
  if (trace) {
    row.sessionId = trace.sessionId;
    if (trace.warning) row.warning = [row.warning, trace.warning].filter(Boolean).join("; ");
  }
  if (!out) {
    if (trace?.traceId) {
      row.traceId = trace.traceId;
      row.spanId = newSpanId();
      row.parentSpanId = trace.parentSpanId;
    }
    return;
  }
  const w3c = trace?.traceId && W3C_TRACE.test(trace.traceId) ? trace : null;
  const end = row.receivedAt ?? new Date();
  const start = row.requestedAt ?? end;
  const content = ctx.deps.config.otelExport?.captureContent;
  const attributes: Record<string, string | number | boolean> = {
    "gen_ai.operation.name": row.api === "embeddings" ? "embeddings" : "chat",
    "hone.log_id": row.id,
    "hone.project_id": ctx.projectId,
    "hone.api": row.api ?? "chat",
  };
  if (row.provider) attributes["gen_ai.provider.name"] = row.provider;
  if (row.model) attributes["gen_ai.request.model"] = row.model;
  if (row.inputTokens != null) attributes["gen_ai.usage.input_tokens"] = row.inputTokens;
  if (row.outputTokens != null) attributes["gen_ai.usage.output_tokens"] = row.outputTokens;
  if (row.costUsd != null) attributes["hone.cost_usd"] = row.costUsd;
  if (row.statusCode != null) attributes["http.response.status_code"] = row.statusCode;
  if (row.cacheHit) attributes["hone.cache_hit"] = true;
  if (row.route) attributes["hone.route"] = row.route;
  if (trace?.sessionId) attributes["session.id"] = trace.sessionId;
  // A client's own op-trace-id (not W3C) is kept on the log; the span goes in a trace of its own, naming it.
  if (trace?.traceId && !w3c) attributes["hone.trace_id"] = trace.traceId;
  const failed = row.statusCode === null || row.statusCode >= 400;
  if (failed) attributes["error.type"] = String(row.statusCode ?? "no_response");
  // The messages only when the operator asks (as stored: masked where the project masks).
  if (content && !row.mask) {
    attributes["gen_ai.input.messages"] = JSON.stringify(row.reqPayload ?? null).slice(0, 65_536);
    attributes["gen_ai.output.messages"] = JSON.stringify(row.respPayload ?? null).slice(0, 65_536);
  }
  const ids = out.record({
    name: `${attributes["gen_ai.operation.name"]} ${row.model ?? ""}`.trim(),
    start,
    end,
    parent: w3c?.traceId && w3c.parentSpanId ? { traceId: w3c.traceId, spanId: w3c.parentSpanId } : null,
    attributes,
    error: failed ? (row.errorMessage ?? `status ${row.statusCode ?? "none"}`) : null,
  });
  row.traceId = trace?.traceId && !w3c ? trace.traceId : ids.traceId;
  row.spanId = ids.spanId;
  row.parentSpanId = trace?.parentSpanId ?? null;
}
