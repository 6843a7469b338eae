import { boolean, index, jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import type { KeyScope, Role } from "../../core/key-scope";

export type { KeyScope, Role };

/** An organisation owns projects; people are its members. */
export const organizations = pgTable("organizations", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
});

/**
 * A person who signs in as themselves: by password (an argon2id hash), by single sign-on (the
 * provider's issuer and subject), or both. The email is stored lowercased and is unique.
 */
export const users = pgTable("users", {
  id: text("id").primaryKey(),
  email: text("email").notNull().unique(),
  name: text("name"),
  passwordHash: text("password_hash"),
  /** `<issuer> <sub>` of the single sign-on identity linked to this user. */
  oidcSubject: text("oidc_subject").unique(),
  disabledAt: timestamp("disabled_at", { withTimezone: true, mode: "date" }),
  createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
});

export const projects = pgTable("projects", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  /** The organisation that owns it; null for a project made before organisations (the first owner adopts them). */
  organizationId: text("organization_id").references(() => organizations.id),
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
    /** After it the key is refused (401); null: it never expires. */
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "date" }),
    /** Model strings the key may call, as globs (`openai:gpt-4o*`); null: any model. */
    allowedModels: jsonb("allowed_models").$type<string[]>(),
    /** What the key may be used for; every scope by default. */
    scopes: jsonb("scopes").$type<KeyScope[]>().notNull().default(["gateway", "read", "write"]),
    /** A person's notes about the key (owner, app): short strings by short names. */
    metadata: jsonb("metadata").$type<Record<string, string>>(),
    /** When the "key.expiring" alert was sent, so it is sent once. */
    expiryAlertedAt: timestamp("expiry_alerted_at", { withTimezone: true, mode: "date" }),
    /** The person who made it (null: the CLI, the admin token, another key, or made before this was kept). */
    createdBy: text("created_by"),
    /**
     * `person`: the key acts for its maker, at most with their current role, and stops when they are
     * removed or disabled; `project`: a service key, which outlives whoever made it.
     */
    owner: text("owner").$type<"person" | "project">().notNull().default("project"),
  },
  (t) => [index().on(t.projectId), index().on(t.createdBy)],
);

// Console sign-ins. The browser holds only a random token (in an HttpOnly cookie); its SHA-256 is
// stored. A session of a key dies with the key (checked at every request); an admin session has
// no key and may switch between projects.
export const consoleSessions = pgTable(
  "console_sessions",
  {
    id: text("id").primaryKey(),
    tokenHash: text("token_hash").notNull().unique(),
    /** The project the session acts on: the key's project, or the one an admin switched to. */
    projectId: text("project_id").references(() => projects.id, { onDelete: "set null" }),
    apiKeyId: text("api_key_id").references(() => apiKeys.id, { onDelete: "cascade" }),
    isAdmin: boolean("is_admin").notNull().default(false),
    /** A person's session: ends when the user is removed. */
    userId: text("user_id").references(() => users.id, { onDelete: "cascade" }),
    /** The organisation a person's session acts in. */
    organizationId: text("organization_id").references(() => organizations.id, { onDelete: "set null" }),
    address: text("address"),
    userAgent: text("user_agent"),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    /** Moved forward at most every few seconds; the idle limit counts from it. */
    lastSeenAt: timestamp("last_seen_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    /** The absolute limit. */
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "date" }).notNull(),
    revokedAt: timestamp("revoked_at", { withTimezone: true, mode: "date" }),
  },
  (t) => [index().on(t.apiKeyId), index().on(t.expiresAt), index().on(t.userId)],
);
