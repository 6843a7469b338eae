import { defineConfig } from "drizzle-kit";

// Migrations are generated here and applied by the app at start, on PGlite and Postgres alike.
export default defineConfig({
  dialect: "postgresql",
  schema: "./src/db/schema/index.ts",
  out: "./schema/migrations",
});
