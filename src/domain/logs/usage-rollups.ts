import type { Queryable } from "../../db/client";

/**
 * Keeps the usage rollups equal to the logs after logs of a project changed or went away (tags
 * rewritten, logs deleted by a filter): the closed hours these logs fall in are summed again from
 * what is stored. Call it in the same transaction as the change, after it.
 */
export async function refreshRollupsForLogs(_db: Queryable, _projectId: string, _logIds: readonly string[]): Promise<void> {
  // Filled in by the rollup work (issue 22); a no-op until then.
}
