CREATE TABLE "limit_counters" (
	"limit_id" text,
	"metric" text,
	"value" text,
	"window_start" timestamp with time zone,
	"window_end" timestamp with time zone NOT NULL,
	"leased" double precision DEFAULT 0 NOT NULL,
	"spent" double precision DEFAULT 0 NOT NULL,
	"last_grant" double precision DEFAULT 0 NOT NULL,
	"alerted" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "limit_counters_pkey" PRIMARY KEY("limit_id","metric","value","window_start")
);
--> statement-breakpoint
CREATE TABLE "limits" (
	"id" text PRIMARY KEY,
	"project_id" text NOT NULL,
	"scope" text NOT NULL,
	"key_id" text,
	"tag_key" text,
	"tag_value" text,
	"subject" text NOT NULL,
	"requests_per_minute" integer,
	"tokens_per_minute" integer,
	"cost_per_day_usd" double precision,
	"cost_per_month_usd" double precision,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "project_webhooks" (
	"project_id" text PRIMARY KEY,
	"url" text NOT NULL,
	"secret_enc" text NOT NULL,
	"secret_hint" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "webhook_deliveries" (
	"id" text PRIMARY KEY,
	"project_id" text NOT NULL,
	"event" text NOT NULL,
	"dedupe" text NOT NULL,
	"payload" jsonb NOT NULL,
	"status" text NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"last_status_code" integer,
	"last_error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"delivered_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "expires_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "allowed_models" jsonb;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "scopes" jsonb DEFAULT '["gateway","read","write"]' NOT NULL;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "metadata" jsonb;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "expiry_alerted_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "limit_counters_window_end_index" ON "limit_counters" ("window_end");--> statement-breakpoint
CREATE UNIQUE INDEX "limits_project_id_subject_index" ON "limits" ("project_id","subject");--> statement-breakpoint
CREATE UNIQUE INDEX "webhook_deliveries_project_id_dedupe_index" ON "webhook_deliveries" ("project_id","dedupe");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_project_id_created_at_index" ON "webhook_deliveries" ("project_id","created_at");--> statement-breakpoint
ALTER TABLE "limit_counters" ADD CONSTRAINT "limit_counters_limit_id_limits_id_fkey" FOREIGN KEY ("limit_id") REFERENCES "limits"("id") ON DELETE CASCADE;--> statement-breakpoint
ALTER TABLE "limits" ADD CONSTRAINT "limits_project_id_projects_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE;--> statement-breakpoint
ALTER TABLE "limits" ADD CONSTRAINT "limits_key_id_api_keys_id_fkey" FOREIGN KEY ("key_id") REFERENCES "api_keys"("id") ON DELETE CASCADE;--> statement-breakpoint
ALTER TABLE "project_webhooks" ADD CONSTRAINT "project_webhooks_project_id_projects_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_project_id_projects_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE;