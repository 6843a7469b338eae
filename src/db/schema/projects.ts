import { index, pgTable, text, timestamp } from "drizzle-orm/pg-core";

export const projects = pgTable("projects", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
});

// Only a SHA-256 of each key is stored: keys carry ~238 bits of randomness, so a fast hash is
// safe and keeps authentication to one indexed lookup.
export const apiKeys = pgTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    projectId: text("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    keyHash: text("key_hash").notNull().unique(),
    /** Last 4 characters, so a person can tell keys apart without the key itself. */
    keyHint: text("key_hint").notNull(),
    /** A person's label for the key ("ci", "laptop"); optional. */
    name: text("name"),
    /** Updated at most once a minute per key, so authentication stays one indexed read. */
    lastUsedAt: timestamp("last_used_at", { withTimezone: true, mode: "date" }),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    revokedAt: timestamp("revoked_at", { withTimezone: true, mode: "date" }),
  },
  (t) => [index().on(t.projectId)],
);
