import { z } from "zod";
import { DomainError } from "../../core/errors";
import { checkExportRoom, receiveExport } from "../../domain/traces";
import { encodeExportResponse } from "../../lib/otlp/decode";
import { readBodyBytes } from "./body";
import { route } from "./route";

// The OTLP/HTTP trace receiver (docs/traces.md): what OpenTelemetry exporters send to
// `$OTEL_EXPORTER_OTLP_ENDPOINT/v1/traces` with the endpoint set to https://<hone>/api/v1/otel.
// Protobuf or JSON, gzip or not; the project key as a bearer token or in x-api-key / x-hone-key
// (OTEL_EXPORTER_OTLP_HEADERS). Answers as a receiver does: 200 with a partial success naming the
// spans it rejected; 400 for a body it cannot read (an exporter does not retry it); 429/503 with
// Retry-After when busy or the database is away (an exporter retries those).

const PartialSuccess = z.object({
  partialSuccess: z.object({ rejectedSpans: z.number(), errorMessage: z.string() }).optional(),
});

function bad(message: string): DomainError {
  return new DomainError("VALIDATION", message, { issues: [{ message }] });
}

export const otelRoutes = [
  route({
    method: "post",
    path: "/otel/v1/traces",
    scope: "gateway",
    summary: "Receive OpenTelemetry traces (OTLP/HTTP, protobuf or JSON): model-call spans become logs, every span the trace's structure",
    tag: "Traces",
    auth: "project",
    keyHeaders: ["x-api-key", "x-hone-key"],
    headers: {
      "content-type": "application/x-protobuf or application/json",
      "content-encoding": "gzip (optional)",
      "x-hone-key": "the project API key, when Authorization cannot be set (also x-api-key)",
    },
    body: { schema: z.unknown(), read: "stream", contentType: "application/x-protobuf" },
    maxBodyBytes: (config) => config.otlpMaxBytes,
    response: { schema: PartialSuccess },
    errors: [400, 401, 413, 429, 503],
    handler: async ({ ctx, deps, request }) => {
      const type = (request.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
      const protobuf = type === "application/x-protobuf" || type === "application/protobuf";
      if (!protobuf && type !== "application/json") {
        throw bad(`content-type ${type || "(none)"} is not OTLP/HTTP: send application/x-protobuf or application/json`);
      }
      // Full: refused before the body is read (memory stays bounded whatever the exporters send).
      checkExportRoom(ctx);
      const bytes = await readBodyBytes(request, deps.config.otlpMaxBytes, deps.config.bodyIdleTimeoutMs);
      const encoding = (request.headers.get("content-encoding") ?? "").trim().toLowerCase();
      // Unpacked, decoded and stored on the ingest thread (Postgres) or in this thread's lanes
      // (HONE_OTLP_CONCURRENCY), 256 exports or 64 MiB waiting at most, first come first served;
      // past that a 429 with Retry-After (exporters retry it).
      const r = await receiveExport(ctx, { bytes, protobuf, encoding });
      if (protobuf) {
        return new Response(Buffer.from(encodeExportResponse(r.rejected, r.message)), { headers: { "content-type": "application/x-protobuf" } });
      }
      return r.rejected || r.message ? { partialSuccess: { rejectedSpans: r.rejected, errorMessage: r.message } } : {};
    },
  }),
] as const;
