import { Elysia } from "elysia";
import type { Deps } from "../../deps";
import { checkCache } from "../../domain/cache";
import { getLatestLog, reportCall, updateLogMetadata } from "../../domain/logs";
import { DomainError } from "../../errors";
import { authenticateRequest } from "../auth";
import { readJsonBody } from "./body";
import { asObject } from "./wire";

export function logsRoutes(deps: Deps) {
  const max = deps.config.maxBodyBytes;
  const json = async (request: Request) => asObject(await readJsonBody(request, max));
  const app = new Elysia({ name: "rest-logs" })
    .post(
      "/report",
      async ({ request }) => {
        const ctx = await authenticateRequest(deps, request);
        await reportCall(ctx, await json(request), "openai");
        return { status: "ok" as const };
      },
      { parse: "none" },
    )
    .post(
      "/report-anthropic",
      async ({ request }) => {
        const ctx = await authenticateRequest(deps, request);
        await reportCall(ctx, await json(request), "anthropic");
        return { status: "ok" as const };
      },
      { parse: "none" },
    )
    .post(
      "/logs/update-metadata",
      async ({ request }) => {
        const ctx = await authenticateRequest(deps, request);
        return updateLogMetadata(ctx, (await json(request)) as never);
      },
      { parse: "none" },
    )
    .post(
      "/logs/update-tags",
      async ({ request }) => {
        // Deprecated spelling of update-metadata.
        const ctx = await authenticateRequest(deps, request);
        const body = await json(request);
        return updateLogMetadata(ctx, { filters: body.filters, metadata: body.tags } as never);
      },
      { parse: "none" },
    )
    .post(
      "/check-cache",
      async ({ request }) => {
        const ctx = await authenticateRequest(deps, request);
        return checkCache(ctx, await json(request));
      },
      { parse: "none" },
    );
  return app.get("/local-testing-only-get-latest-logged-call", async ({ request }) => {
    if (!deps.config.testingRoutes) {
      throw new DomainError("NOT_FOUND", "Not found: this route is enabled by HONE_TESTING_ROUTES=true");
    }
    const ctx = await authenticateRequest(deps, request);
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
  });
}
