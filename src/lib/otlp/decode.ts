import protobuf from "protobufjs";

// OTLP/HTTP trace export requests (opentelemetry-proto, trace v1), decoded from protobuf or JSON
// into plain spans, bounded: spans per request, attributes per span, events per span, nesting of
// attribute values. What is past a bound is dropped and counted, never an error (an exporter would
// retry the same batch forever). JSON follows the OTLP JSON mapping: lowerCamelCase names, ids
// in hex, 64-bit integers as strings or numbers, enums as integers.

/** An attribute value: the OTLP AnyValue as JSON (a kvlist becomes an object, bytes a base64 string). */
export type AttrValue = string | number | boolean | null | AttrValue[] | { [key: string]: AttrValue };
export type Attrs = Record<string, AttrValue>;

export type OtlpEvent = { name: string; timeMs: number | null; attributes: Attrs };

export type OtlpSpan = {
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  name: string;
  /** 0 unspecified, 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  startMs: number | null;
  endMs: number | null;
  /** 0 unset, 1 ok, 2 error. */
  statusCode: number;
  statusMessage: string | null;
  attributes: Attrs;
  events: OtlpEvent[];
  resource: Attrs;
  scope: { name: string | null; version: string | null };
};

export type DecodedSpans = { spans: OtlpSpan[]; rejected: number; reasons: string[] };

export type DecodeLimits = { maxSpans: number; maxAttributes: number; maxEvents: number; maxDepth: number };

// The messages of opentelemetry-proto a trace export uses (field numbers as in the .proto files).
const PROTO = `
syntax = "proto3";
package otlp;
message ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }
message ExportTraceServiceResponse { ExportTracePartialSuccess partial_success = 1; }
message ExportTracePartialSuccess { int64 rejected_spans = 1; string error_message = 2; }
message ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2; string schema_url = 3; }
message Resource { repeated KeyValue attributes = 1; uint32 dropped_attributes_count = 2; }
message ScopeSpans { InstrumentationScope scope = 1; repeated Span spans = 2; string schema_url = 3; }
message InstrumentationScope { string name = 1; string version = 2; repeated KeyValue attributes = 3; uint32 dropped_attributes_count = 4; }
message Span {
  bytes trace_id = 1; bytes span_id = 2; string trace_state = 3; bytes parent_span_id = 4; string name = 5; int32 kind = 6;
  fixed64 start_time_unix_nano = 7; fixed64 end_time_unix_nano = 8; repeated KeyValue attributes = 9; uint32 dropped_attributes_count = 10;
  repeated Event events = 11; uint32 dropped_events_count = 12; repeated Link links = 13; uint32 dropped_links_count = 14; Status status = 15; fixed32 flags = 16;
}
message Event { fixed64 time_unix_nano = 1; string name = 2; repeated KeyValue attributes = 3; uint32 dropped_attributes_count = 4; }
message Link { bytes trace_id = 1; bytes span_id = 2; string trace_state = 3; repeated KeyValue attributes = 4; uint32 dropped_attributes_count = 5; fixed32 flags = 6; }
message Status { string message = 2; int32 code = 3; }
message KeyValue { string key = 1; AnyValue value = 2; }
message AnyValue {
  oneof value { string string_value = 1; bool bool_value = 2; int64 int_value = 3; double double_value = 4; ArrayValue array_value = 5; KeyValueList kvlist_value = 6; bytes bytes_value = 7; }
}
message ArrayValue { repeated AnyValue values = 1; }
message KeyValueList { repeated KeyValue values = 1; }
`;

const root = protobuf.parse(PROTO, { keepCase: false }).root;
const RequestType = root.lookupType("otlp.ExportTraceServiceRequest");
const ResponseType = root.lookupType("otlp.ExportTraceServiceResponse");

/** The protobuf answer of a receiver: empty on full success, else the partial success. */
export function encodeExportResponse(rejected: number, message: string): Uint8Array {
  if (!rejected && !message) return new Uint8Array(0);
  return ResponseType.encode(ResponseType.fromObject({ partialSuccess: { rejectedSpans: String(rejected), errorMessage: message } })).finish();
}

/** A protobuf request, for tests and benches that build one (the real exporters build their own). */
export function encodeExportRequest(obj: unknown): Uint8Array {
  return RequestType.encode(RequestType.fromObject(obj as Record<string, unknown>)).finish();
}

export class OtlpDecodeError extends Error {}

/** Decodes a protobuf ExportTraceServiceRequest. Throws OtlpDecodeError when it is not one. */
export function decodeProtobuf(bytes: Uint8Array, limits: DecodeLimits): DecodedSpans {
  let message: protobuf.Message;
  try {
    message = RequestType.decode(bytes);
  } catch (err) {
    throw new OtlpDecodeError(`not an OTLP ExportTraceServiceRequest in protobuf: ${err instanceof Error ? err.message : String(err)}`);
  }
  const obj = RequestType.toObject(message, { longs: String, enums: Number, bytes: Array, defaults: false, arrays: true, oneofs: false });
  return normalise(obj, limits, "protobuf");
}

/** Decodes an OTLP/JSON ExportTraceServiceRequest (already parsed). Throws OtlpDecodeError when it is not one. */
export function decodeJson(value: unknown, limits: DecodeLimits): DecodedSpans {
  if (!value || typeof value !== "object" || Array.isArray(value))
    throw new OtlpDecodeError("not an OTLP ExportTraceServiceRequest: expected a JSON object with resourceSpans");
  return normalise(value as Record<string, unknown>, limits, "json");
}

type Obj = Record<string, unknown>;
const asObj = (v: unknown): Obj => (v && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : {});
const asArr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

function normalise(req: Obj, limits: DecodeLimits, form: "json" | "protobuf"): DecodedSpans {
  const out: DecodedSpans = { spans: [], rejected: 0, reasons: [] };
  const reason = (r: string) => {
    if (out.reasons.length < 5 && !out.reasons.includes(r)) out.reasons.push(r);
  };
  const resourceSpans = req.resourceSpans ?? req.resource_spans;
  if (resourceSpans !== undefined && !Array.isArray(resourceSpans)) throw new OtlpDecodeError("resourceSpans must be a list");
  for (const rs of asArr(resourceSpans)) {
    const resource = attrsOf(asObj(asObj(rs).resource).attributes, limits);
    for (const ss of asArr(asObj(rs).scopeSpans ?? asObj(rs).scope_spans)) {
      const scopeObj = asObj(asObj(ss).scope);
      const scope = { name: strOrNull(scopeObj.name), version: strOrNull(scopeObj.version) };
      for (const s of asArr(asObj(ss).spans)) {
        if (out.spans.length >= limits.maxSpans) {
          out.rejected++;
          reason(`more than ${limits.maxSpans} spans in one request (HONE_OTLP_MAX_SPANS): send smaller batches`);
          continue;
        }
        const span = asObj(s);
        const traceId = idOf(span.traceId, form);
        const spanId = idOf(span.spanId, form);
        const valid = traceId?.length === 32 && spanId?.length === 16 && !/^0+$/.test(traceId) && !/^0+$/.test(spanId);
        if (!valid || !traceId || !spanId) {
          out.rejected++;
          reason("a span without a valid traceId (16 bytes) and spanId (8 bytes)");
          continue;
        }
        const parent = idOf(span.parentSpanId, form);
        const status = asObj(span.status);
        const events = asArr(span.events);
        out.spans.push({
          traceId,
          spanId,
          parentSpanId: parent && parent.length === 16 && !/^0+$/.test(parent) ? parent : null,
          name: String(span.name ?? "").slice(0, 1024),
          kind: intOf(span.kind),
          startMs: msOf(span.startTimeUnixNano),
          endMs: msOf(span.endTimeUnixNano),
          statusCode: intOf(status.code),
          statusMessage: strOrNull(status.message),
          attributes: attrsOf(span.attributes, limits),
          events: events.slice(0, limits.maxEvents).map((e) => ({
            name: String(asObj(e).name ?? "").slice(0, 1024),
            timeMs: msOf(asObj(e).timeUnixNano),
            attributes: attrsOf(asObj(e).attributes, limits),
          })),
          resource,
          scope,
        });
      }
    }
  }
  return out;
}

const strOrNull = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v.slice(0, 1024) : null);

function intOf(v: unknown): number {
  const n = typeof v === "number" ? v : typeof v === "string" ? Number(v) : 0;
  return Number.isInteger(n) ? n : 0;
}

/** Nanoseconds (a string or number; protobuf's fixed64 as a string) as milliseconds, or null. */
function msOf(v: unknown): number | null {
  if (v === undefined || v === null || v === "" || v === "0" || v === 0) return null;
  try {
    const ns = typeof v === "string" ? BigInt(v) : typeof v === "number" && Number.isFinite(v) ? BigInt(Math.trunc(v)) : null;
    if (ns === null || ns <= 0n) return null;
    const ms = Number(ns / 1_000_000n) + Number(ns % 1_000_000n) / 1e6;
    // Between 1970 and 9999: anything else is not a time.
    return ms > 0 && ms < 253_402_300_800_000 ? ms : null;
  } catch {
    return null;
  }
}

/** A trace or span id: protobuf bytes (an array) or OTLP/JSON hex (some senders use base64: both are read). */
function idOf(v: unknown, form: "json" | "protobuf"): string | null {
  if (Array.isArray(v) || v instanceof Uint8Array) return Buffer.from(v as number[]).toString("hex");
  if (typeof v !== "string" || v === "") return null;
  if (/^[0-9a-fA-F]+$/.test(v) && (v.length === 32 || v.length === 16)) return v.toLowerCase();
  // base64 (the proto3 JSON mapping of bytes, which some senders follow).
  if (form === "json" && /^[A-Za-z0-9+/]+=*$/.test(v)) {
    const b = Buffer.from(v, "base64");
    if (b.length === 16 || b.length === 8) return b.toString("hex");
  }
  return null;
}

function attrsOf(list: unknown, limits: DecodeLimits): Attrs {
  const out: Attrs = {};
  let n = 0;
  for (const kv of asArr(list)) {
    if (n >= limits.maxAttributes) break;
    const key = asObj(kv).key;
    if (typeof key !== "string" || key === "" || key.length > 256) continue;
    out[key] = anyValue(asObj(kv).value, limits.maxDepth);
    n++;
  }
  return out;
}

function anyValue(v: unknown, depth: number): AttrValue {
  const o = asObj(v);
  if (typeof o.stringValue === "string") return o.stringValue;
  if (typeof o.boolValue === "boolean") return o.boolValue;
  if (o.intValue !== undefined) {
    const n = Number(o.intValue);
    return Number.isFinite(n) ? n : null;
  }
  if (o.doubleValue !== undefined) {
    const n = Number(o.doubleValue);
    return Number.isFinite(n) ? n : null;
  }
  if (depth <= 0) return null;
  if (o.arrayValue !== undefined)
    return asArr(asObj(o.arrayValue).values)
      .slice(0, 1000)
      .map((x) => anyValue(x, depth - 1));
  if (o.kvlistValue !== undefined) {
    const out: { [key: string]: AttrValue } = {};
    for (const kv of asArr(asObj(o.kvlistValue).values).slice(0, 1000)) {
      const key = asObj(kv).key;
      if (typeof key === "string") out[key] = anyValue(asObj(kv).value, depth - 1);
    }
    return out;
  }
  if (o.bytesValue !== undefined) return Array.isArray(o.bytesValue) ? Buffer.from(o.bytesValue as number[]).toString("base64") : String(o.bytesValue);
  return null;
}
