import { sql } from "drizzle-orm";
import { check, doublePrecision, index, integer, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { projects } from "./projects";

/**
 * Online evaluation of a model: a share of the application's calls to it judged by criteria after
 * they answered (domain/online-evals). Routes carry theirs in their configuration (`judge`).
 */
export const onlineEvals = pgTable(
  "online_evals",
  {
    id: text("id").primaryKey(),
    projectId: text("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    /** The model, as logs spell it (`openai:gpt-4o-mini`, `hone:support-bot`). */
    model: text("model").notNull(),
    /** Criterion references (`<id>` or `<id>@v<N>`): a call passes when every one passes. */
    criteria: text("criteria").array().notNull(),
    sampleRate: doublePrecision("sample_rate").notNull(),
    /** Alert (webhook) when the pass rate of the last hour falls below this share; null: no alert. */
    alertBelow: doublePrecision("alert_below"),
    /** Judged calls in the hour needed before the pass rate is trusted enough to alert. */
    alertMinJudged: integer("alert_min_judged").notNull().default(20),
    status: text("status").$type<"ACTIVE" | "PAUSED">().notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex().on(t.projectId, t.model), index().on(t.projectId, t.id), check("online_evals_status_check", sql`${t.status} in ('ACTIVE', 'PAUSED')`)],
);
