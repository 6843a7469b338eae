import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { isMemoryDataDir } from "./client";
import { startFromTemplate } from "./pglite-template";

/**
 * A fresh embedded database (no data directory yet) starts as a copy of the migrated template
 * when there is one for this code (pglite-template.ts); otherwise it is created and migrated by a
 * child process (migrate.child.ts, which then keeps it as the template) before the server opens
 * it, and the server only opens it. Nothing for Postgres, an in-memory database or one that exists
 * (its new migrations, if any, are applied by the server as before). Returns true when the child
 * migrated it; false when the server is to check the migrations itself (a copied template, whose
 * migrations are all applied, or no child could be started). `warn` hears why no template was kept.
 */
export async function migrateFreshPgliteInChild(
  config: { databaseUrl?: string | null; dataDir: string; pgliteTemplateDir?: string | null },
  warn: (message: string) => void = () => {},
): Promise<boolean> {
  if (config.databaseUrl || isMemoryDataDir(config.dataDir) || existsSync(resolve(config.dataDir, "pgdata"))) return false;
  if (startFromTemplate(config)) return false;
  let child: ReturnType<typeof Bun.spawn>;
  try {
    child = Bun.spawn([process.execPath, fileURLToPath(new URL("./migrate.child.ts", import.meta.url))], {
      stdin: "ignore",
      stdout: "ignore",
      stderr: "pipe",
      env: { ...process.env, HONE_DATA_DIR: config.dataDir, HONE_PGLITE_TEMPLATE_DIR: config.pgliteTemplateDir ?? "off" },
    });
  } catch {
    return false;
  }
  const [code, stderr] = await Promise.all([child.exited, new Response(child.stderr as ReadableStream).text()]);
  if (code !== 0) throw new Error(stderr.trim() || `creating the embedded database failed (exit ${code})`);
  if (stderr.trim()) warn(stderr.trim());
  return true;
}
