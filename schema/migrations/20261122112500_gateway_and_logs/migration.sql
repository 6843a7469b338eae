CREATE TABLE "custom_providers" (
	"id" text PRIMARY KEY,
	"project_id" text NOT NULL,
	"slug" text NOT NULL,
	"kind" text NOT NULL,
	"base_url" text NOT NULL,
	"api_version" text,
	"key_ciphertext" text,
	"key_last4" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "provider_keys" (
	"project_id" text,
	"provider" text,
	"key_ciphertext" text NOT NULL,
	"key_last4" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "provider_keys_pkey" PRIMARY KEY("project_id","provider")
);
--> statement-breakpoint
CREATE TABLE "request_log_bodies" (
	"log_id" text PRIMARY KEY,
	"req_payload" jsonb,
	"resp_payload" jsonb
);
--> statement-breakpoint
CREATE TABLE "request_logs" (
	"id" text PRIMARY KEY,
	"project_id" text NOT NULL,
	"source" text NOT NULL,
	"provider" text,
	"model" text,
	"completion_id" text,
	"status_code" integer,
	"error_message" text,
	"requested_at" timestamp with time zone,
	"received_at" timestamp with time zone,
	"duration_ms" integer,
	"input_tokens" integer,
	"output_tokens" integer,
	"cost_usd" double precision,
	"cache_hit" boolean DEFAULT false NOT NULL,
	"metadata" jsonb DEFAULT '{}' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "custom_providers_project_id_slug_index" ON "custom_providers" ("project_id","slug");--> statement-breakpoint
CREATE INDEX "request_logs_project_id_id_index" ON "request_logs" ("project_id","id");--> statement-breakpoint
CREATE INDEX "request_logs_project_id_completion_id_index" ON "request_logs" ("project_id","completion_id");--> statement-breakpoint
CREATE INDEX "request_logs_project_id_model_id_index" ON "request_logs" ("project_id","model","id");--> statement-breakpoint
CREATE INDEX "request_logs_metadata_gin" ON "request_logs" USING gin ("metadata" jsonb_path_ops);--> statement-breakpoint
ALTER TABLE "custom_providers" ADD CONSTRAINT "custom_providers_project_id_projects_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE;--> statement-breakpoint
ALTER TABLE "provider_keys" ADD CONSTRAINT "provider_keys_project_id_projects_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE;--> statement-breakpoint
ALTER TABLE "request_log_bodies" ADD CONSTRAINT "request_log_bodies_log_id_request_logs_id_fkey" FOREIGN KEY ("log_id") REFERENCES "request_logs"("id") ON DELETE CASCADE;