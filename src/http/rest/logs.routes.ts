import { z } from "zod";
import { checkCache } from "../../domain/cache";
import { AnthropicReportInput, CheckCacheInput, getLatestLog, ReportInput, reportCall, UpdateMetadataInput, updateLogMetadata } from "../../domain/logs";
import { route } from "./route";
import * as W from "./wire-schemas";

export const logsRoutes = [
  route({
    method: "post",
    path: "/check-cache",
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
    summary: "Merge metadata into the logs matching all filters (null deletes a key)",
    tag: "Logs",
    auth: "project",
    body: { schema: UpdateMetadataInput, read: "object" },
    response: { schema: W.MatchedLogs },
    errors: [400, 401],
    handler: ({ ctx, body }) => updateLogMetadata(ctx, body as never),
  }),
  route({
    method: "post",
    path: "/logs/update-tags",
    summary: "Deprecated spelling of update-metadata (`tags` instead of `metadata`)",
    tag: "Logs",
    auth: "project",
    deprecated: true,
    body: { schema: z.object({ filters: UpdateMetadataInput.shape.filters, tags: UpdateMetadataInput.shape.metadata }), read: "object" },
    response: { schema: W.MatchedLogs },
    errors: [400, 401],
    handler: ({ ctx, body }) => updateLogMetadata(ctx, { filters: body.filters, metadata: body.tags } as never),
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
        tags: log.metadata,
        metadata: log.metadata,
      };
    },
  }),
];
