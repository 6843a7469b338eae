import { index, jsonb, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";
import { organizations, projects, type Role, users } from "./projects";

/** A user's role in an organisation (every project of it, unless narrowed in project_roles). */
export const memberships = pgTable(
  "memberships",
  {
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    role: text("role").$type<Role>().notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.userId] }), index().on(t.userId)],
);

/** A member's role narrowed in one project (never above the organisation role). */
export const projectRoles = pgTable(
  "project_roles",
  {
    projectId: text("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    role: text("role").$type<Role>().notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.userId] })],
);

/**
 * A single-use link to join an organisation with a role (or, with no organisation, to create the
 * first owner). Only a hash of its token is stored.
 */
export const invitations = pgTable(
  "invitations",
  {
    id: text("id").primaryKey(),
    organizationId: text("organization_id").references(() => organizations.id, { onDelete: "cascade" }),
    /** Who may accept it; null on the first-owner link. */
    email: text("email"),
    role: text("role").$type<Role>().notNull(),
    tokenHash: text("token_hash").notNull().unique(),
    invitedBy: text("invited_by"),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "date" }).notNull(),
    acceptedAt: timestamp("accepted_at", { withTimezone: true, mode: "date" }),
    acceptedBy: text("accepted_by"),
    revokedAt: timestamp("revoked_at", { withTimezone: true, mode: "date" }),
  },
  (t) => [index().on(t.organizationId, t.createdAt)],
);

/** A single sign-on attempt between the redirect to the provider and its return. */
export const oidcFlows = pgTable("oidc_flows", {
  state: text("state").primaryKey(),
  /** A hash of the browser cookie that started it: the return must come to the same browser. */
  browserHash: text("browser_hash").notNull(),
  codeVerifier: text("code_verifier").notNull(),
  nonce: text("nonce").notNull(),
  inviteToken: text("invite_token"),
  expiresAt: timestamp("expires_at", { withTimezone: true, mode: "date" }).notNull(),
});

/**
 * Who changed what, when, from where: one row per mutation on every transport. Append-only: a
 * trigger refuses updates, and deletes but the retention purge's (migration 20261128).
 * No foreign keys: the record outlives the project, key or user it names.
 */
export const auditEvents = pgTable(
  "audit_events",
  {
    id: text("id").primaryKey(),
    at: timestamp("at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    organizationId: text("organization_id"),
    projectId: text("project_id"),
    actorType: text("actor_type").$type<"user" | "apiKey" | "admin" | "cli" | "system" | "anonymous">().notNull(),
    actorId: text("actor_id"),
    /** The user's email, the key's prefix: readable after the actor is gone. */
    actorLabel: text("actor_label"),
    transport: text("transport").$type<"trpc" | "graphql" | "rest" | "cli" | "console">().notNull(),
    verb: text("verb").notNull(),
    resourceType: text("resource_type"),
    resourceId: text("resource_id"),
    outcome: text("outcome").$type<"ok" | "error">().notNull(),
    summary: jsonb("summary").$type<Record<string, unknown>>(),
    address: text("address"),
    userAgent: text("user_agent"),
    requestId: text("request_id"),
  },
  (t) => [index().on(t.organizationId, t.at), index().on(t.projectId, t.at), index().on(t.at)],
);
