// `bun install` runs this (the postinstall script; also `bun run db:template`): it makes the
// migrated template a fresh embedded database starts from (pglite-template.ts), so that even the
// first start of a new installation skips PGlite's initdb and the migrations. It never fails the
// install: what went wrong is printed and the first start makes the template instead.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../core/config";
import { openDatabase } from "./client";
import { hasTemplate, saveTemplate } from "./pglite-template";

async function main(): Promise<string> {
  const config = loadConfig();
  const dir = config.pgliteTemplateDir;
  if (!dir) return "HONE_PGLITE_TEMPLATE_DIR is off: no template made";
  if (hasTemplate(dir)) return `the embedded database template is ready in ${dir}`;
  const dataDir = mkdtempSync(join(tmpdir(), "hone-template-"));
  try {
    const database = await openDatabase({ ...config, databaseUrl: undefined, dataDir }, { owner: "hone template" });
    await database.close();
    return saveTemplate(dir, dataDir) ?? `made the embedded database template in ${dir}`;
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

try {
  console.log(await main());
} catch (err) {
  console.log(`no embedded database template made (the first start makes one): ${err instanceof Error ? err.message : String(err)}`);
}
process.exit(0);
