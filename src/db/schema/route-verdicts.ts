import { boolean, index, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { projects } from "./projects";

// Online evaluation's judged samples, one row per judged answer: a route's (its `judge`) and a
// model's (an online evaluation, online-evals.ts). A route version's and a model's pass rate over
// time are computed from them (domain/online-evals).
export const routeVerdicts = pgTable(
  "route_verdicts",
  {
    id: text("id").primaryKey(),
    projectId: text("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    /** The route called (null: a plain model call judged by its model's online evaluation). */
    route: text("route"),
    /** The rollout version of the target that answered (null: it has none). */
    version: text("version"),
    /** The model that answered, as logs spell it (`openai:gpt-4o-mini`); null for verdicts kept before models were. */
    model: text("model"),
    /** Every criterion passed; null when a judge could not give a verdict (see error). */
    passed: boolean("passed"),
    error: text("error"),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [index().on(t.projectId, t.route, t.createdAt), index().on(t.projectId, t.model, t.createdAt), index().on(t.createdAt)],
);
