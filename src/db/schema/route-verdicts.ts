import { boolean, index, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { projects } from "./projects";

// A sample of a route's answers judged by its criteria, one row per judged answer: what a
// version's pass rate is computed from (domain/routing/route-judging.ts).
export const routeVerdicts = pgTable(
  "route_verdicts",
  {
    id: text("id").primaryKey(),
    projectId: text("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    route: text("route").notNull(),
    /** The rollout version of the target that answered (null: it has none). */
    version: text("version"),
    /** Every criterion passed; null when a judge could not give a verdict (see error). */
    passed: boolean("passed"),
    error: text("error"),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [index().on(t.projectId, t.route, t.createdAt), index().on(t.createdAt)],
);
