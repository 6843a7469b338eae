import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { isMemoryDataDir } from "./client";

/**
 * A fresh embedded database (no data directory yet) is created and migrated by a child process
 * (migrate.child.ts) before the server opens it; then the server only opens it. Nothing for
 * Postgres, an in-memory database or one that exists (its new migrations, if any, are applied by
 * the server as before). Returns false when no child could be started: the server then migrates.
 */
export async function migrateFreshPgliteInChild(config: { databaseUrl?: string | null; dataDir: string }): Promise<boolean> {
  if (config.databaseUrl || isMemoryDataDir(config.dataDir) || existsSync(resolve(config.dataDir, "pgdata"))) return false;
  let child: ReturnType<typeof Bun.spawn>;
  try {
    child = Bun.spawn([process.execPath, fileURLToPath(new URL("./migrate.child.ts", import.meta.url))], {
      stdin: "ignore",
      stdout: "ignore",
      stderr: "pipe",
      env: { ...process.env, HONE_DATA_DIR: config.dataDir },
    });
  } catch {
    return false;
  }
  const [code, stderr] = await Promise.all([child.exited, new Response(child.stderr as ReadableStream).text()]);
  if (code !== 0) throw new Error(stderr.trim() || `creating the embedded database failed (exit ${code})`);
  return true;
}
