// Creates and migrates a fresh embedded database in a process of its own (the server starts it,
// migrate-in-child.ts): PGlite's WebAssembly memory grows while it initialises and applies every
// migration, and never shrinks, so doing it here leaves the server with the memory of a database
// that only opens (about 340 MB instead of 740 MB). Exits 1 with the reason on stderr.
import { loadConfig } from "../config";
import { openDatabase } from "./client";

try {
  const database = await openDatabase(loadConfig(), { owner: "hone server (migrating)" });
  await database.close();
  process.exit(0);
} catch (err) {
  console.error(err instanceof Error ? err.message : String(err));
  process.exit(1);
}
