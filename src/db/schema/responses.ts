import { sql } from "drizzle-orm";
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
  // created_at: retention deletes the oldest first (HONE_LOG_RETENTION_DAYS). The item ids: an
  // item_reference is found by its id alone (item ids do not say which response made them), so
  // without these every reference would read every stored response of the project. Only the ids
  // are indexed, not the items' content.
  (t) => [
    index().on(t.projectId, t.id),
    index().on(t.createdAt),
    index("stored_responses_output_item_ids_index").using("gin", sql`jsonb_path_query_array(${t.response}, '$.output[*].id')`),
    index("stored_responses_input_item_ids_index").using("gin", sql`jsonb_path_query_array(${t.input}, '$[*].id')`),
  ],
);
