// Traces (docs/traces.md): OpenTelemetry spans in, model calls as logs, traces and sessions read.
export { type IngestResult, ingestSpans } from "./ingest-spans";
export { checkExportRoom, decodeExport, type ExportRequest, receiveExport, type TraceIngestThread } from "./receive-export";
export { type ModelCall, modelCallOf, operationOf } from "./genai";
export { getTrace, type Trace, TraceIdInput, type TraceSpanView } from "./get-trace";
export { ListSessionsInput, listSessions, ListTracesInput, listTraces, type Page, type SessionSummary, type TraceSummary } from "./list-traces";
export { deleteExpiredSpans } from "./retention";
export { maskStoredSpans } from "./mask-stored-spans";
