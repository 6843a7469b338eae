import { and, eq, isNull } from "drizzle-orm";
import { consoleSessions } from "../../db/schema";
import type { Deps } from "../deps";
import { hashSessionToken } from "./internal";

/** Signs out: the session's token is refused from now on, by every process. Idempotent. */
export async function endSession(deps: Deps, token: string): Promise<void> {
  await deps.database.db
    .update(consoleSessions)
    .set({ revokedAt: deps.clock() })
    .where(and(eq(consoleSessions.tokenHash, hashSessionToken(token)), isNull(consoleSessions.revokedAt)));
}
