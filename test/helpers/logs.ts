import { systemCtx } from "../../src/domain/context";
import { insertRequestLogs, type NewRequestLog } from "../../src/domain/logs";
import type { TestApp } from "./app";

/**
 * The project's logs in the order they were stored (their ids hold the time of their calls, which a
 * report may set in the past), with their bodies (after flushing the batched writer).
 */
export async function logsOf(t: TestApp, projectId = t.project.projectId) {
  await t.deps.logWriter.flush();
  return t.deps.database.db.query.requestLogs.findMany({
    where: { projectId },
    with: { body: true },
    orderBy: { createdAt: "asc", id: "asc" },
  });
}

export async function latestLog(t: TestApp, projectId?: string) {
  const all = await logsOf(t, projectId);
  const last = all.at(-1);
  if (!last) throw new Error("no log stored");
  return { ...last, body: last.body ?? { reqPayload: null, respPayload: null, reqPayloadOriginal: null, respPayloadOriginal: null } };
}

let seeded = 0;
/** A log id at `time` (unique within the process), as the server makes them: `log_` + 32 hex digits. */
export function logIdFor(time: Date): string {
  seeded++;
  return `log_${time.getTime().toString(16).padStart(12, "0")}${seeded.toString(16).padStart(20, "0")}`;
}

export type SeedLog = Partial<Omit<NewRequestLog, "projectId">> & { at?: Date };

/** A report's log record at `at` (default now), with `overrides`. */
export function newLogRecord(projectId: string, l: SeedLog = {}): NewRequestLog {
  const at = l.at ?? new Date();
  const { at: _at, ...rest } = l;
  return {
    id: logIdFor(at),
    projectId,
    source: "report",
    provider: null,
    model: "m",
    completionId: null,
    statusCode: 200,
    errorMessage: null,
    requestedAt: at,
    receivedAt: at,
    durationMs: null,
    inputTokens: null,
    outputTokens: null,
    costUsd: null,
    cacheHit: false,
    tags: {},
    reqPayload: { model: l.model ?? "m", messages: [{ role: "user", content: "hi" }] },
    respPayload: { choices: [{ index: 0, message: { role: "assistant", content: "hello" } }] },
    ...rest,
  };
}

/** Stores logs directly (no gateway), each `at` a time (default: now, one ms apart, in order). */
export async function seedLogs(t: TestApp, logs: SeedLog[], projectId = t.project.projectId): Promise<NewRequestLog[]> {
  const base = Date.now() - logs.length;
  const rows: NewRequestLog[] = logs.map((l, i) => newLogRecord(projectId, { ...l, at: l.at ?? new Date(base + i) }));
  await insertRequestLogs(systemCtx(t.deps, "test"), rows);
  return rows;
}
