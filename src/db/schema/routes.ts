import { integer, jsonb, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import type { RouteConfig } from "../../domain/routing";
import { projects } from "./projects";

// A project's named routes, called as hone:<slug> (one namespace with its fine-tunes): fallback
// groups of weighted targets. `previous_config` is what the last change replaced (rollback).
export const routes = pgTable(
  "routes",
  {
    id: text("id").primaryKey(),
    projectId: text("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    slug: text("slug").notNull(),
    config: jsonb("config").$type<RouteConfig>().notNull(),
    previousConfig: jsonb("previous_config").$type<RouteConfig>(),
    /** Counts changes (each update and rollback): the completion cache keys on it. */
    revision: integer("revision").notNull().default(1),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex().on(t.projectId, t.slug)],
);
