import { afterAll } from "bun:test";
import { dropPostgresTemplate } from "./db";

// Loaded before every test file (bunfig.toml): after the last one, the migrated Postgres template
// that test databases were created from is dropped.
afterAll(async () => {
  await dropPostgresTemplate();
});
