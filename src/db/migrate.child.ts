// Creates and migrates a fresh embedded database in a process of its own (the server starts it,
// migrate-in-child.ts): PGlite's WebAssembly memory grows while it initialises and applies every
// migration, and never shrinks, so doing it here leaves the server with the memory of a database
// that only opens (about 340 MB instead of 740 MB). Then keeps a copy as the template the next
// fresh data directory starts from (pglite-template.ts); a template that cannot be kept is said on
// stderr, and the exit is still 0. Exits 1 with the reason on stderr when the database failed.
import { loadConfig } from "../core/config";
import { openDatabase } from "./client";
import { saveTemplate } from "./pglite-template";

const config = loadConfig();
try {
  const database = await openDatabase(config, { owner: "hone server (migrating)" });
  await database.close();
} catch (err) {
  console.error(err instanceof Error ? err.message : String(err));
  process.exit(1);
}
const why = config.pgliteTemplateDir ? saveTemplate(config.pgliteTemplateDir, config.dataDir) : null;
if (why) console.error(why);
process.exit(0);
