import { index, jsonb, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";
import { projects } from "./projects";

// Cached chat completions, per project. The key is a SHA-256 over everything that can change the
// output (see domain/cache/cache-key.ts); expired entries are never served and are swept away.
export const cacheEntries = pgTable(
  "cache_entries",
  {
    projectId: text("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    key: text("key").notNull(),
    response: jsonb("response").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "date" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.key] }), index().on(t.expiresAt)],
);
