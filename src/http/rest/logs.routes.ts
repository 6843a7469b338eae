import { z } from "zod";
import { checkCache } from "../../domain/cache";
import {
  AnthropicReportInput,
  CheckCacheInput,
  DeleteLogsInput,
  deleteLogs,
  exportLogs,
  getLatestLog,
  type LogFilter,
  ReportInput,
  reportCall,
  UpdateTagsInput,
  updateLogTags,
} from "../../domain/logs";
import { DomainError, parseInput } from "../../core/errors";
import { errorFields } from "../../core/logger";
import { domainLogFilter, LogFilterWire } from "../log-filter-wire";
import { requestMeta } from "../request-meta";
import { createPacer, heldUntilDone } from "./pacing";
import { route } from "./route";
import * as W from "./wire-schemas";

/** The body of /logs/delete: the domain's, with the wire's LogFilter. */
const DeleteLogsWire = DeleteLogsInput.extend({ filter: LogFilterWire.nullish() });

/** OpenPipe's spelling: the tags are `metadata` on this route (the domain's word is tags). */
const UpdateMetadataWire = z.strictObject({ filters: UpdateTagsInput.shape.filters, metadata: UpdateTagsInput.shape.tags });

export const logsRoutes = [
  route({
    method: "post",
    path: "/check-cache",
    // Sent by the SDKs beside model calls: a gateway key may.
    scope: "gateway",
    summary: "Deprecated: always answers {respPayload: null}",
    tag: "Logs",
    auth: "project",
    deprecated: true,
    body: { schema: CheckCacheInput, read: "object" },
    response: { schema: W.CheckCacheWire },
    errors: [400, 401],
    handler: ({ ctx, body }) => checkCache(ctx, body),
  }),
  route({
    method: "post",
    path: "/report",
    // Sent by the SDKs beside model calls: a gateway key may.
    scope: "gateway",
    summary: "Record a call made in the chat-completions format",
    tag: "Logs",
    auth: "project",
    body: { schema: ReportInput, read: "object" },
    response: { schema: W.StatusOk },
    errors: [400, 401],
    handler: async ({ ctx, body }) => {
      await reportCall(ctx, body, "openai");
      return { status: "ok" as const };
    },
  }),
  route({
    method: "post",
    path: "/report-anthropic",
    // Sent by the SDKs beside model calls: a gateway key may.
    scope: "gateway",
    summary: "Record a call made to Anthropic's Messages API",
    tag: "Logs",
    auth: "project",
    body: { schema: AnthropicReportInput, read: "object" },
    response: { schema: W.StatusOk },
    errors: [400, 401],
    handler: async ({ ctx, body }) => {
      await reportCall(ctx, body, "anthropic");
      return { status: "ok" as const };
    },
  }),
  route({
    method: "post",
    path: "/logs/update-metadata",
    // Sent by the SDKs beside model calls: a gateway key may.
    scope: "gateway",
    summary: "Merge metadata into the logs matching all filters (null deletes a key)",
    tag: "Logs",
    auth: "project",
    body: { schema: UpdateMetadataWire, read: "object" },
    response: { schema: W.MatchedLogs },
    errors: [400, 401],
    handler: ({ ctx, body }) => {
      // Parsed here, so a bad field is named as the client spelled it.
      const { filters, metadata } = parseInput(UpdateMetadataWire, body);
      return updateLogTags(ctx, { filters, tags: metadata });
    },
  }),
  route({
    method: "post",
    path: "/logs/update-tags",
    // Sent by the SDKs beside model calls: a gateway key may.
    scope: "gateway",
    summary: "Deprecated spelling of update-metadata (`tags` instead of `metadata`)",
    tag: "Logs",
    auth: "project",
    deprecated: true,
    body: { schema: UpdateTagsInput, read: "object" },
    response: { schema: W.MatchedLogs },
    errors: [400, 401],
    handler: ({ ctx, body }) => updateLogTags(ctx, body),
  }),
  route({
    method: "get",
    path: "/logs/export",
    summary: "Stream the logs matching a filter, newest first, as JSONL (with payloads) or CSV (columns)",
    tag: "Logs",
    auth: "project",
    query: {
      format: { schema: z.enum(["jsonl", "csv"]), description: "jsonl (default): one log per line with its payloads; csv: one row per log, a header first" },
      filter: { schema: z.string(), description: 'a LogFilter as JSON, e.g. {"metadata":[{"key":"user","equals":"u42"}]}; none: every log' },
    },
    response: { schema: W.LogExportRowWire, contentType: "application/x-ndjson" },
    errors: [400, 401],
    handler: async ({ ctx, deps, request, query }) => {
      // A project's exports run a few at a time (HONE_PROJECT_CONCURRENCY): the slot is held until the file ends.
      const release = await deps.fairShare.acquire(ctx.projectId, "export");
      // The verb checks both before the first row is read: a bad value is a 400, not a broken file.
      const chunks = await heldUntilDone(release, async () => exportLogs(ctx, { format: query.format || undefined, filter: parseFilterParam(query.filter) }));
      const format = query.format === "csv" ? "csv" : "jsonl";
      const encoder = new TextEncoder();
      const pacer = createPacer();
      const stream = new ReadableStream<Uint8Array>({
        async pull(controller) {
          try {
            const { done, value } = await chunks.next();
            if (done) {
              release();
              return controller.close();
            }
            pacer.count(value.length);
            controller.enqueue(encoder.encode(value));
          } catch (err) {
            deps.logger.error("log export failed mid-stream", { requestId: requestMeta(request).requestId, ...errorFields(err) });
            // The file ends with a line saying so, not silently short.
            const message = "the export stopped early: the server failed to read the next logs";
            controller.enqueue(encoder.encode(format === "csv" ? `# error: ${message}\r\n` : `${JSON.stringify({ error: { message } })}\n`));
            release();
            controller.close();
          }
        },
        async cancel() {
          release();
          await chunks.return(undefined);
        },
      });
      return new Response(stream, {
        headers: {
          "content-type": format === "csv" ? "text/csv; charset=utf-8" : "application/x-ndjson; charset=utf-8",
          "content-disposition": `attachment; filename="logs.${format}"`,
        },
      });
    },
  }),
  route({
    method: "post",
    path: "/logs/delete",
    summary: "Delete the logs matching a filter, in batches (done: false means call again); dryRun counts",
    tag: "Logs",
    auth: "project",
    body: { schema: DeleteLogsWire, read: "object" },
    response: { schema: W.LogsDeletionWire },
    errors: [400, 401],
    handler: ({ ctx, body }) => {
      // Parsed here, so a bad field is named as the client spelled it.
      const { filter, ...rest } = parseInput(DeleteLogsWire, body);
      return deleteLogs(ctx, { ...rest, filter: domainLogFilter(filter) as z.input<typeof LogFilter> });
    },
  }),
  route({
    method: "get",
    path: "/local-testing-only-get-latest-logged-call",
    summary: "The project's newest log (only with HONE_TESTING_ROUTES=true)",
    tag: "Logs",
    auth: "project",
    enabledIf: { enabled: (config) => config.testingRoutes, reason: "Not found: this route is enabled by HONE_TESTING_ROUTES=true" },
    response: { schema: W.LatestLoggedCall },
    errors: [401, 404],
    handler: async ({ ctx }) => {
      const log = await getLatestLog(ctx);
      if (!log) return Response.json(null);
      return {
        createdAt: log.createdAt.toISOString(),
        cacheHit: log.cacheHit,
        statusCode: log.statusCode,
        errorMessage: log.errorMessage,
        reqPayload: log.reqPayload,
        respPayload: log.respPayload,
        tags: log.tags,
        metadata: log.tags,
      };
    },
  }),
];

/** The `filter` parameter: JSON of a LogFilter, as the wire spells it (a 400 names what is wrong). */
function parseFilterParam(text: string | undefined): z.input<typeof LogFilter> | null {
  if (text === undefined || text === "") return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new DomainError("VALIDATION", "filter must be a LogFilter as JSON", { issues: [{ message: "filter is not valid JSON", path: ["filter"] }] });
  }
  const r = LogFilterWire.safeParse(value);
  if (!r.success)
    throw new DomainError("VALIDATION", "filter must be a LogFilter as JSON", {
      issues: r.error.issues.map((i) => ({ message: i.message, path: ["filter", ...i.path.map(String)] })),
    });
  return domainLogFilter(r.data) as z.input<typeof LogFilter>;
}
