import { index, jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { projects } from "./projects";

// Responses made on POST /api/v1/responses with store (the default), per project: what
// previous_response_id continues from, for every provider (Hone keeps the state, not the
// provider), and what GET /responses/{id} and its input_items answer.
export const storedResponses = pgTable(
  "stored_responses",
  {
    id: text("id").primaryKey(),
    projectId: text("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    previousResponseId: text("previous_response_id"),
    /** This call's input items, normalised (a string input is one user message), with ids. */
    input: jsonb("input").$type<Record<string, unknown>[]>().notNull(),
    /** The Response object as the client received it (its output items continue the conversation). */
    response: jsonb("response").$type<Record<string, unknown>>().notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  // created_at: retention deletes the oldest first (HONE_LOG_RETENTION_DAYS).
  (t) => [index().on(t.projectId, t.id), index().on(t.createdAt)],
);
