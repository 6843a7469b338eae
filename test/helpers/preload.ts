import { afterAll } from "bun:test";
import { dropPostgresTemplate, removeLeftovers } from "./db";

// Loaded before every test file (bunfig.toml): after the last one, the migrated Postgres template
// that test databases were created from is dropped, and what removeAtEnd was given is removed.
afterAll(async () => {
  removeLeftovers();
  await dropPostgresTemplate();
});
