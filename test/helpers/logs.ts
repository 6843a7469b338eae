import type { TestApp } from "./app";

/** The project's logs, oldest first, with their bodies (after flushing the batched writer). */
export async function logsOf(t: TestApp, projectId = t.project.projectId) {
  await t.deps.logWriter.flush();
  return t.deps.database.db.query.requestLogs.findMany({
    where: { projectId },
    with: { body: true },
    orderBy: { id: "asc" },
  });
}

export async function latestLog(t: TestApp, projectId?: string) {
  const all = await logsOf(t, projectId);
  const last = all.at(-1);
  if (!last) throw new Error("no log stored");
  return { ...last, body: last.body ?? { reqPayload: null, respPayload: null, reqPayloadOriginal: null, respPayloadOriginal: null } };
}
