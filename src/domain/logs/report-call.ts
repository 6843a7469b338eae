import type { z } from "zod";
import type { Ctx } from "../context";
import { isConnectionError, sqlStateOf } from "../../core/sql-errors";
import { DomainError, issuesFromZod, parseInput, unavailable, VALIDATION_MESSAGE } from "../../core/errors";
import { fromAnthropicMessage, fromAnthropicRequest, type Usage } from "../../providers";
import { logCost, ratesFor, projectOverrides, withOverride } from "../pricing";
import type { GivenRates } from "../pricing";
import { canonicalModel, resolveModel } from "../projects";
import {
  AnthropicMessageShape,
  AnthropicReportInput,
  AnthropicRequestShape,
  checkTagShapes,
  MergedTags,
  ReportedCompletionId,
  ReportedModel,
  ReportInput,
} from "./inputs";
import { checkedUsage, tokenClasses } from "./checked-usage";
import { markUsageHourStale } from "./store/rollups";
import { mergeTags } from "./merge-tags";
import type { NewRequestLog } from "./schemas";
import { newSpanId } from "../../lib/trace-context";
import { analyzeLog, type Masking, maskingFor, maskingOfCall, sensitiveIn } from "../masking";

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The rates a reported call is priced with, at the time it was made (null: Hone knows no price for its model). */
function ratesOf(model: string | null, format: "openai" | "anthropic", at: Date): GivenRates | null {
  if (!model) return null;
  if (format === "anthropic") return ratesFor("anthropic", model, at);
  try {
    const route = resolveModel(model, []);
    return "upstreamModel" in route ? ratesFor(route.provider, route.upstreamModel, at) : null;
  } catch {
    // Reports may name any model, in any spelling: one Hone cannot route is simply not priced.
    return null;
  }
}

/** Checks one part of a report, naming its place (`reqPayload.messages.0`) in the issues. */
function check<S extends z.ZodType>(schema: S, value: unknown, path: (string | number)[]): void {
  const r = schema.safeParse(value);
  if (r.success) return;
  const issues = issuesFromZod(r.error).map((i) => {
    const full = [...path, ...(i.path ?? [])];
    return { message: `${full.join(".")}: ${i.message.replace(/^[^:]*: /, "")}`, path: full };
  });
  throw new DomainError("VALIDATION", VALIDATION_MESSAGE, { issues });
}

/**
 * Logs a call the client made to a provider itself. Payloads are kept as reported (an Anthropic
 * report is also converted to chat-completion form, so it can feed datasets); resolves once the
 * log is committed.
 */
export async function reportCall(ctx: Ctx, raw: unknown, format: "openai" | "anthropic"): Promise<{ id: string }> {
  if (isObject(raw)) {
    checkTagShapes(raw.tags, ["tags"]);
    if (format === "anthropic") checkTagShapes(raw.metadata, ["metadata"]);
  }
  const input = format === "anthropic" ? parseInput(AnthropicReportInput, raw) : parseInput(ReportInput, raw);
  const requestedAt = input.requestedAt != null ? new Date(input.requestedAt) : null;
  const receivedAt = input.receivedAt != null ? new Date(input.receivedAt) : null;
  // The log is dated when the call was made (a backfilled report lands at its time, not now).
  const at = requestedAt ?? ctx.deps.clock();
  checkReportTime(ctx, at);
  let reqPayload = input.reqPayload;
  let respPayload = input.respPayload;
  let original: Pick<NewRequestLog, "reqPayloadOriginal" | "respPayloadOriginal"> = {};
  if (format === "anthropic") {
    original = { reqPayloadOriginal: reqPayload ?? null, respPayloadOriginal: respPayload ?? null };
    if (isObject(reqPayload)) {
      check(AnthropicRequestShape, reqPayload, ["reqPayload"]);
      reqPayload = fromAnthropicRequest(reqPayload);
    }
    if (isObject(respPayload) && respPayload.type === "message") {
      check(AnthropicMessageShape, respPayload, ["respPayload"]);
      const created = Math.floor((receivedAt ?? ctx.deps.clock()).getTime() / 1000);
      respPayload = fromAnthropicMessage(respPayload, created);
    }
  }
  const model = isObject(reqPayload) && typeof reqPayload.model === "string" ? reqPayload.model : null;
  const completionId = isObject(respPayload) && typeof respPayload.id === "string" ? respPayload.id : null;
  // Impossible counts (1e300, -5, 1.5, "7") keep no tokens and no cost; the log says why.
  const { usage, warning } = checkedUsage(isObject(respPayload) && isObject(respPayload.usage) ? (respPayload.usage as Usage) : null);
  if (model !== null) check(ReportedModel, model, ["reqPayload", "model"]);
  if (completionId !== null) check(ReportedCompletionId, completionId, ["respPayload", "id"]);
  // The request's own metadata (OpenAI's), the report's tags, and /report-anthropic's metadata.
  const requestMetadata = format === "openai" && isObject(reqPayload) ? reqPayload.metadata : undefined;
  const tags = mergeTags(requestMetadata, input.tags, "metadata" in input ? input.metadata : undefined);
  check(MergedTags, tags, ["tags"]);
  // Priced at the prices of when the call was made; a report without a status was answered.
  const canonical = model === null ? null : canonicalModel(model, ctx.deps.config.modelPrefixes, format === "anthropic" ? "anthropic" : "openai");
  const rates = withOverride(await projectOverrides(ctx), canonical, at, ratesOf(model, format, at));
  const durationMs = requestedAt && receivedAt ? Math.max(0, Math.round(receivedAt.getTime() - requestedAt.getTime())) : null;
  const cost = logCost(usage, rates, { answered: input.statusCode == null || (input.statusCode >= 200 && input.statusCode < 300), durationMs });
  // The project's masking: what is stored holds placeholders; block refuses a report holding any
  // sensitive value, storing only that it was refused (no text).
  const masking = model === null ? await maskingFor(ctx, { keyId: actorKeyId(ctx), models: [] }) : await maskingOfCall(ctx, model);
  const mask: NewRequestLog["mask"] = masking.mode === "off" ? null : { mode: masking.mode, kinds: masking.kinds, recognizers: masking.recognizers };
  if (masking.mode === "block") await refuseSensitive(ctx, { reqPayload, respPayload, original, errorMessage: input.errorMessage ?? null }, masking);
  const record: NewRequestLog = {
    id: ctx.deps.ids("log", at),
    projectId: ctx.projectId,
    source: format === "anthropic" ? "report-anthropic" : "report",
    provider: format === "anthropic" ? "anthropic" : null,
    model: canonical,
    completionId,
    statusCode: input.statusCode ?? null,
    errorMessage: input.errorMessage ?? null,
    requestedAt,
    receivedAt,
    durationMs,
    ...tokenClasses(usage),
    ...cost,
    warning,
    cacheHit: false,
    tags,
    reqPayload: reqPayload ?? null,
    respPayload: respPayload ?? null,
    ...original,
    mask,
    // The report's own trace ids, else the request's traceparent; a call in a trace is a span of its own.
    traceId: input.traceId ?? ctx.trace?.traceId ?? null,
    parentSpanId: input.parentSpanId ?? (input.traceId ? null : (ctx.trace?.parentSpanId ?? null)),
    sessionId: input.sessionId ?? ctx.trace?.sessionId ?? null,
  };
  record.spanId = input.spanId ?? (record.traceId ? newSpanId() : null);
  if (ctx.trace?.warning) record.warning = [record.warning, ctx.trace.warning].filter(Boolean).join("; ");
  // The external analyzer (if any) reads what is stored; the write waits for its answer.
  if (mask) analyzeLog(ctx, mask, [record.reqPayload, record.respPayload, record.reqPayloadOriginal, record.respPayloadOriginal, record.errorMessage]);
  try {
    await ctx.deps.logWriter.write(record);
  } catch (err) {
    // Not stored: the client may send it again. An unreachable database is a 503 to retry; a value
    // the database still rejects (after sanitising) is the report's own problem.
    if (isConnectionError(err) || (err instanceof Error && err.message === "log queue overflow")) throw unavailable();
    if (!/^(22|23|54)/.test(sqlStateOf(err) ?? "")) throw err;
    throw new DomainError("VALIDATION", "The report holds a value the database cannot store", {
      issues: [{ message: "a payload value could not be stored (for example JSON nested too deeply)" }],
    });
  }
  if (cost.costFlag) ctx.deps.metrics.unpriced(cost.costFlag);
  // A call made hours ago lands in an hour the usage rollups have closed: that hour is summed again.
  await markUsageHourStale(ctx, record.id);
  return { id: record.id };
}

const actorKeyId = (ctx: Ctx) => (ctx.actor.type === "apiKey" ? ctx.actor.keyId : null);

/** block: a report holding a sensitive value is a 400 naming the kinds; nothing of it is stored. */
async function refuseSensitive(ctx: Ctx, parts: Record<string, unknown>, masking: Masking): Promise<void> {
  const counts = await sensitiveIn(ctx, masking, parts);
  if (!counts) return;
  const found = Object.entries(counts)
    .map(([kind, n]) => `${kind} (${n})`)
    .join(", ");
  const message = `This report holds sensitive data that the project's masking rule blocks: ${found}. Nothing of it was stored.`;
  const e = new DomainError("VALIDATION", message, { issues: [{ message, path: ["reqPayload"] }] });
  e.details.masking = true;
  throw e;
}

/** How far ahead of the server's clock a report's requestedAt may be (clients' clocks drift a little). */
const MAX_CLOCK_AHEAD_MS = 5 * 60_000;

function checkReportTime(ctx: Ctx, at: Date): void {
  const now = ctx.deps.clock().getTime();
  const bad = (message: string) => new DomainError("VALIDATION", message, { issues: [{ message, path: ["requestedAt"] }] });
  if (at.getTime() > now + MAX_CLOCK_AHEAD_MS) {
    throw bad(`requestedAt is ${new Date(at).toISOString()}, more than 5 minutes ahead of the server's clock (${new Date(now).toISOString()})`);
  }
  const days = ctx.deps.config.logRetentionDays;
  if (days && at.getTime() < now - days * 86_400_000) {
    // Retention would delete it at once: refused, so a backfill says which calls it could not keep.
    throw bad(
      `requestedAt is ${new Date(at).toISOString()}, older than the log retention of ${days} days (HONE_LOG_RETENTION_DAYS): it would be deleted at once`,
    );
  }
}
