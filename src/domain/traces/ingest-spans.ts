import { and, eq, inArray, isNotNull, sql } from "drizzle-orm";
import { type Ctx, dbOf } from "../context";
import { DomainError } from "../../core/errors";
import { yieldTurn } from "../yield-turn";
import { traceSpans } from "../../db/schema";
import { derivedId } from "../../lib/ids";
import type { Attrs, AttrValue, DecodedSpans, OtlpSpan } from "../../lib/otlp/decode";
import { jsonText } from "../../lib/json-text";
import { checkedUsage, insertLogRows, logRow, MergedTags, type NewRequestLog, tokenClasses } from "../logs";
import { logCost, projectOverrides, ratesFor, withOverride } from "../pricing";
import { canonicalModel } from "../projects";
import { analyzeLog, maskingOfCall, sensitiveIn, storageMasking } from "../masking";
import { type ModelCall, modelCallOf, operationOf } from "./genai";

// OpenTelemetry spans in (docs/traces.md): every span is kept as the trace's structure; a span that
// is a model call (the GenAI conventions) also becomes a log with source "otel", so filters,
// usage, datasets, criteria and monitors work on it as on any call. A span sent twice is stored
// once: its log's id is derived from the project, trace and span, and its span row is keyed so.

export type IngestResult = { accepted: number; rejected: number; logs: number; message: string };

/** Bytes of attributes (JSON) one span row keeps; past it, the largest values are left out. */
const MAX_SPAN_ATTRIBUTES_BYTES = 16 * 1024;
/** A string attribute kept whole on the span row (longer ones are cut, marked). */
const MAX_ATTRIBUTE_STRING = 2_048;
/** Rows per insert statement. */
const BATCH = 500;

const KINDS = ["unspecified", "internal", "server", "client", "producer", "consumer"];

/** Spans built between two turns of the event loop (the gateway's calls go in between). */
const SPANS_PER_TURN = 25;
/**
 * What may wait for a lane (HONE_OTLP_CONCURRENCY): 256 exports and 64 MiB of their bodies at most
 * (an exporter sending span by span queues many small ones); past either, a 429.
 */
const MAX_WAITING = 256;
const MAX_WAITING_BYTES = 64 * 1024 * 1024;
let active = 0;
let waitingBytes = 0;
const waiting: (() => void)[] = [];

/**
 * Runs one export's storing in one of this thread's ingest lanes: on the serving thread one, as
 * ingest is bulk work there (yielding as it goes); on the ingest thread HONE_OTLP_CONCURRENCY.
 * Past what may wait, a 429 with Retry-After (OTLP exporters retry it).
 */
const busy = () => new DomainError("RATE_LIMITED", "Hone is busy storing traces: retry in a second", { retryAfterSeconds: 1 });

/** Throws the 429 an export would get when what waits is full: checked before its body is read and decoded. */
export function checkIngestRoom(): void {
  if (waiting.length >= MAX_WAITING || waitingBytes >= MAX_WAITING_BYTES) throw busy();
}

async function inLane<T>(lanes: number, bytes: number, fn: () => Promise<T>): Promise<T> {
  if (active >= lanes) {
    if (waiting.length >= MAX_WAITING || waitingBytes + bytes > MAX_WAITING_BYTES) throw busy();
    // The lane is handed over by the export that ends (active stays counted).
    waitingBytes += bytes;
    await new Promise<void>((resolve) => waiting.push(resolve));
    waitingBytes -= bytes;
  } else active++;
  try {
    return await fn();
  } finally {
    const next = waiting.shift();
    if (next) next();
    else active--;
  }
}

/**
 * Stores decoded spans for the project in one of `lanes` lanes; answers as an OTLP receiver does
 * (how many were rejected, and why). The ingest thread runs HONE_OTLP_CONCURRENCY lanes; the
 * serving thread one, so its calls keep their turns.
 */
export function ingestSpans(ctx: Ctx, decoded: DecodedSpans, bytes = 0, lanes = 1): Promise<IngestResult> {
  return inLane(lanes, bytes, () => store(ctx, decoded));
}

async function store(ctx: Ctx, decoded: DecodedSpans): Promise<IngestResult> {
  const reasons = [...decoded.reasons];
  let rejected = decoded.rejected;
  const overrides = await projectOverrides(ctx);
  const sessions = await traceSessions(ctx, decoded.spans);
  const logs: string[] = [];
  const rows: (typeof traceSpans.$inferInsert)[] = [];
  let n = 0;
  for (const span of decoded.spans) {
    if (++n % SPANS_PER_TURN === 0) await yieldTurn();
    const call = modelCallOf(span);
    let logId: string | null = null;
    if (call) {
      const built = await logOf(ctx, span, call, overrides, sessions.get(span.traceId) ?? null);
      if (typeof built === "string") {
        rejected++;
        if (reasons.length < 5 && !reasons.includes(built)) reasons.push(built);
        continue;
      }
      logId = built.id;
      logs.push(built.row);
    }
    rows.push(spanRow(ctx, span, call, logId));
  }
  // A span's own attributes and events (a tool's arguments and result) are masked as entries are.
  const mask = await storageMasking(ctx);
  const masked = mask
    ? rows.map((r) => ({ ...r, ...mask({ name: r.name, attributes: r.attributes, events: r.events, statusMessage: r.statusMessage }) }))
    : rows;
  const db = dbOf(ctx);
  // Logs first: a batch retried after a failure between the two finds its logs stored (their ids
  // are derived) and stores its spans.
  for (let i = 0; i < logs.length; i += BATCH) await insertLogRows(db, logs.slice(i, i + BATCH), { late: true });
  // The calls of these traces stored before their session was named (an application's own span,
  // ending after its calls, often comes in a later export) join it now.
  // Only where a span that is not a call names it: a session a call's own span names, its log has.
  const late = new Map<string, string>();
  for (const r of rows) if (r.logId === null && r.sessionId && !late.has(r.traceId)) late.set(r.traceId, r.sessionId);
  if (late.size) {
    const pairs = [...late].map(([t, s]) => ({ t, s }));
    await db.execute(
      sql`update request_logs l set session_id = v.s from jsonb_to_recordset(${JSON.stringify(pairs)}::text::jsonb) as v(t text, s text) where l.project_id = ${ctx.projectId} and l.trace_id = v.t and l.session_id is null`,
    );
  }
  await yieldTurn();
  for (let i = 0; i < masked.length; i += BATCH)
    await db
      .insert(traceSpans)
      .values(masked.slice(i, i + BATCH))
      .onConflictDoNothing();
  return { accepted: decoded.spans.length - (rejected - decoded.rejected), rejected, logs: logs.length, message: reasons.join("; ") };
}

/**
 * Each trace's session, for its calls whose own span names none: the first one a span of this
 * export names, else the one a span stored before named.
 */
async function traceSessions(ctx: Ctx, spans: OtlpSpan[]): Promise<Map<string, string>> {
  const of = new Map<string, string>();
  for (const span of spans) {
    const id = of.has(span.traceId) ? null : sessionOf(span);
    if (id) of.set(span.traceId, id);
  }
  const unnamed = [...new Set(spans.map((s) => s.traceId))].filter((t) => !of.has(t));
  for (let i = 0; i < unnamed.length; i += BATCH) {
    const stored = await dbOf(ctx)
      .select({ traceId: traceSpans.traceId, sessionId: sql<string>`max(${traceSpans.sessionId})` })
      .from(traceSpans)
      .where(and(eq(traceSpans.projectId, ctx.projectId), inArray(traceSpans.traceId, unnamed.slice(i, i + BATCH)), isNotNull(traceSpans.sessionId)))
      .groupBy(traceSpans.traceId);
    for (const r of stored) of.set(r.traceId, r.sessionId);
  }
  return of;
}

/** The span's session: session.id (the conventions), gen_ai.conversation.id, or an SDK's metadata (the AI SDK's, Traceloop's association properties). */
function sessionOf(span: OtlpSpan): string | null {
  const v =
    pick(
      span.attributes,
      "session.id",
      "gen_ai.conversation.id",
      "ai.telemetry.metadata.sessionId",
      "ai.telemetry.metadata.session_id",
      "traceloop.association.properties.session_id",
    ) ?? pick(span.resource, "session.id");
  return typeof v === "string" && /^[A-Za-z0-9._:-]{1,128}$/.test(v) ? v : null;
}

const pick = (a: Attrs, ...keys: string[]): AttrValue | undefined => {
  for (const k of keys) if (a[k] !== undefined && a[k] !== null && a[k] !== "") return a[k];
  return undefined;
};

/** Tags from the resource and the span: the service, its environment, the user, the AI SDK's telemetry metadata and Traceloop's association properties. */
function tagsOf(span: OtlpSpan): Record<string, string> {
  const tags: Record<string, string> = {};
  const put = (k: string, v: AttrValue | undefined) => {
    if (v === undefined || v === null || typeof v === "object") return;
    const text = String(v);
    if (text && text.length <= 200 && Object.keys(tags).length < 20) tags[k] = text;
  };
  put("service", span.resource["service.name"]);
  put("environment", pick(span.resource, "deployment.environment.name", "deployment.environment"));
  put("user", pick(span.attributes, "user.id", "enduser.id", "ai.telemetry.metadata.userId", "traceloop.association.properties.user_id"));
  put("session", sessionOf(span) ?? undefined);
  put("agent", span.attributes["gen_ai.agent.name"]);
  for (const [k, v] of Object.entries(span.attributes)) {
    const m = /^(?:ai\.telemetry\.metadata|traceloop\.association\.properties)\.([A-Za-z0-9_.-]{1,64})$/.exec(k);
    if (m && !["userId", "sessionId", "user_id", "session_id"].includes(m[1]!)) put(m[1]!, v);
  }
  const checked = MergedTags.safeParse(tags);
  return checked.success ? checked.data : {};
}

async function logOf(
  ctx: Ctx,
  span: OtlpSpan,
  call: ModelCall,
  overrides: Awaited<ReturnType<typeof projectOverrides>>,
  traceSession: string | null,
): Promise<{ id: string; row: string } | string> {
  const requestedAt = new Date(span.startMs ?? span.endMs ?? ctx.deps.clock().getTime());
  const receivedAt = span.endMs !== null ? new Date(span.endMs) : null;
  const durationMs = span.startMs !== null && span.endMs !== null ? Math.max(0, Math.round(span.endMs - span.startMs)) : null;
  const prefixes = ctx.deps.config.modelPrefixes;
  const spelled = call.provider && !call.model.includes(":") && call.provider !== "openai" ? `${call.provider}:${call.model}` : call.model;
  const model = canonicalModel(spelled, prefixes).slice(0, 256);
  const masking = await maskingOfCall(ctx, model);
  const content = [call.reqPayload, call.respPayload];
  // block: a model call holding a sensitive value is not stored (the exporter is told how many).
  if (masking.mode === "block" && (await sensitiveIn(ctx, masking, content))) return "a model call holding sensitive data the project's masking rule blocks";
  const usage = call.inputTokens !== null || call.outputTokens !== null ? (call.respPayload?.usage ?? null) : null;
  const { usage: checked, warning } = checkedUsage(
    usage
      ? {
          ...(usage as { prompt_tokens: number; completion_tokens: number; total_tokens: number }),
          ...(call.cachedInputTokens !== null ? { prompt_tokens_details: { cached_tokens: call.cachedInputTokens } } : {}),
          ...(call.reasoningTokens !== null ? { completion_tokens_details: { reasoning_tokens: call.reasoningTokens } } : {}),
        }
      : null,
  );
  const answered = call.error === null;
  const rates = withOverride(overrides, model, requestedAt, call.provider ? ratesFor(call.provider, call.responseModel ?? call.model, requestedAt) : null);
  const cost = logCost(checked, rates, { answered, durationMs });
  if (cost.costFlag) ctx.deps.metrics.unpriced(cost.costFlag);
  // Dated to the span's start; its 12 bits past the millisecond hold the finest time the SDK gave,
  // so the calls of a fast agent run sort as they were made (lastInTrace picks the one that came
  // last): the fraction of the start's millisecond, or, from an SDK whose start times are whole
  // milliseconds (OpenTelemetry JS's), the fraction of the end's.
  const fraction = (ms: number | null) => (ms === null ? 0 : ms - Math.floor(ms));
  const subMs = fraction(span.startMs) || fraction(span.endMs);
  const id = derivedId("log", requestedAt, `${ctx.projectId}\u0000${span.traceId}\u0000${span.spanId}`, subMs);
  const record: NewRequestLog = {
    id,
    projectId: ctx.projectId,
    source: "otel",
    api: call.api,
    provider: call.provider,
    model,
    completionId: typeof call.respPayload?.id === "string" && !call.respPayload.id.startsWith("otel-") ? call.respPayload.id.slice(0, 256) : null,
    statusCode: answered ? 200 : 500,
    errorMessage: call.error,
    requestedAt,
    receivedAt,
    durationMs,
    ...tokenClasses(checked),
    ...cost,
    warning,
    cacheHit: false,
    tags: tagsOf(span),
    reqPayload: call.reqPayload,
    respPayload: call.respPayload,
    traceId: span.traceId,
    spanId: span.spanId,
    parentSpanId: span.parentSpanId,
    sessionId: sessionOf(span) ?? traceSession,
    mask: masking.mode === "off" ? null : { mode: masking.mode, kinds: masking.kinds, recognizers: masking.recognizers },
  };
  if (record.mask) {
    analyzeLog(ctx, record.mask, content);
    await record.mask.ready;
    record.mask.ready = undefined;
  }
  return { id, row: logRow(record, ctx.deps.config.maxLoggedPayloadBytes) };
}

/** Text Postgres can store: no NUL characters and no lone surrogates (text and jsonb refuse both). */
const clean = (s: string) => {
  const out = s.includes("\u0000") ? s.replaceAll("\u0000", "\ufffd") : s;
  return out.isWellFormed() ? out : out.toWellFormed();
};
function cleanValue(v: unknown, depth = 0): unknown {
  if (typeof v === "string") return clean(v);
  if (!v || typeof v !== "object" || depth > 16) return v;
  if (Array.isArray(v)) return v.map((x) => cleanValue(x, depth + 1));
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [clean(k), cleanValue(x, depth + 1)]));
}

function spanRow(ctx: Ctx, span: OtlpSpan, call: ModelCall | null, logId: string | null): typeof traceSpans.$inferInsert {
  const dropped = new Set(call?.contentKeys ?? []);
  const attributes: Record<string, unknown> = {};
  let bytes = 0;
  for (const [k, v] of Object.entries(span.attributes)) {
    if (dropped.has(k)) continue;
    const value = typeof v === "string" && v.length > MAX_ATTRIBUTE_STRING ? `${v.slice(0, MAX_ATTRIBUTE_STRING)}… (${v.length} characters)` : v;
    const size = k.length + jsonText(value).length;
    if (bytes + size > MAX_SPAN_ATTRIBUTES_BYTES) continue;
    attributes[k] = value;
    bytes += size;
  }
  const events = span.events.slice(0, 32).map((e) => {
    const attrs: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(e.attributes))
      attrs[k] = typeof v === "string" && v.length > MAX_ATTRIBUTE_STRING ? `${v.slice(0, MAX_ATTRIBUTE_STRING)}…` : v;
    return { name: e.name, timeMs: e.timeMs, attributes: call ? {} : attrs };
  });
  const service = span.resource["service.name"];
  return {
    projectId: ctx.projectId,
    traceId: span.traceId,
    spanId: span.spanId,
    parentSpanId: span.parentSpanId,
    name: clean(span.name) || "(unnamed)",
    kind: span.kind > 0 && span.kind < KINDS.length ? KINDS[span.kind]! : null,
    operation: clean((call?.operation ?? operationOf(span) ?? "").slice(0, 64)) || null,
    service: typeof service === "string" ? clean(service.slice(0, 200)) : null,
    sessionId: sessionOf(span),
    startedAt: span.startMs !== null ? new Date(span.startMs) : null,
    endedAt: span.endMs !== null ? new Date(span.endMs) : null,
    durationMs: span.startMs !== null && span.endMs !== null ? Math.max(0, span.endMs - span.startMs) : null,
    status: span.statusCode === 1 || span.statusCode === 2 ? span.statusCode : 0,
    statusMessage: span.statusMessage === null ? null : clean(span.statusMessage),
    logId,
    attributes: cleanValue(attributes) as Record<string, unknown>,
    events: events.length ? (cleanValue(events) as typeof events) : null,
  };
}
