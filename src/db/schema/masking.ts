import { jsonb, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { projects } from "./projects";

/**
 * How a project masks sensitive data (domain/masking): one rule for the project, and rules that
 * narrow it for one API key or one model (a route is the model hone:<slug>). A call is masked by
 * the strictest rule that applies to it.
 */
export const maskingRules = pgTable(
  "masking_rules",
  {
    id: text("id").primaryKey(),
    projectId: text("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    /** project, key or model. */
    scope: text("scope").$type<"project" | "key" | "model">().notNull(),
    /** The key's id or the model string; empty for the project's rule. */
    subject: text("subject").notNull().default(""),
    /** off, mask_stored, mask_upstream or block. */
    mode: text("mode").$type<"off" | "mask_stored" | "mask_upstream" | "block">().notNull(),
    /** The kinds masked (null: every built-in kind). */
    kinds: jsonb("kinds").$type<string[] | null>(),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex().on(t.projectId, t.scope, t.subject)],
);
