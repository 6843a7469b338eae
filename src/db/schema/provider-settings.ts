import { integer, pgTable, primaryKey, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { projects } from "./projects";

// Provider API keys are stored encrypted (AES-256-GCM, HONE_SECRET_KEY); only the last 4
// characters are kept in clear, for display. A provider may have several, by name (a key pool):
// calls are spread over them by weight, each with its own circuit.
export const providerKeys = pgTable(
  "provider_keys",
  {
    projectId: text("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    provider: text("provider").notNull(),
    name: text("name").notNull().default("default"),
    weight: integer("weight").notNull().default(1),
    keyCiphertext: text("key_ciphertext").notNull(),
    keyLast4: text("key_last4").notNull(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.provider, t.name] })],
);

export const customProviders = pgTable(
  "custom_providers",
  {
    id: text("id").primaryKey(),
    projectId: text("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    slug: text("slug").notNull(),
    kind: text("kind").$type<"openai" | "azure" | "vllm">().notNull(),
    baseUrl: text("base_url").notNull(),
    apiVersion: text("api_version"),
    /** kind vllm: the base model the vLLM server serves (Hone's trainer adapters of this base are served there). */
    baseModel: text("base_model"),
    keyCiphertext: text("key_ciphertext"),
    keyLast4: text("key_last4"),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex().on(t.projectId, t.slug)],
);
