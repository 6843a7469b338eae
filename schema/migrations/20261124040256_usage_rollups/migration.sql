CREATE TABLE "usage_hourly" (
	"project_id" text NOT NULL,
	"hour" timestamp with time zone NOT NULL,
	"model" text,
	"provider" text,
	"source" text NOT NULL,
	"status_class" text NOT NULL,
	"requests" integer NOT NULL,
	"errors" integer NOT NULL,
	"input_tokens" double precision NOT NULL,
	"output_tokens" double precision NOT NULL,
	"cost_usd" double precision NOT NULL,
	"latency" jsonb NOT NULL
);
--> statement-breakpoint
CREATE TABLE "usage_hourly_tags" (
	"project_id" text NOT NULL,
	"hour" timestamp with time zone NOT NULL,
	"tag" text,
	"requests" integer NOT NULL,
	"errors" integer NOT NULL,
	"input_tokens" double precision NOT NULL,
	"output_tokens" double precision NOT NULL,
	"cost_usd" double precision NOT NULL,
	"latency" jsonb NOT NULL
);
--> statement-breakpoint
CREATE TABLE "usage_rollup_state" (
	"id" integer PRIMARY KEY,
	"closed_until" timestamp with time zone,
	"tag_key" text NOT NULL
);
--> statement-breakpoint
ALTER TABLE "request_log_bodies" DROP CONSTRAINT "request_log_bodies_log_id_request_logs_id_fkey";--> statement-breakpoint
ALTER TABLE "dataset_entries" DROP CONSTRAINT "dataset_entries_source_log_id_request_logs_id_fkey";--> statement-breakpoint
CREATE INDEX "usage_hourly_project_id_hour_index" ON "usage_hourly" ("project_id","hour");--> statement-breakpoint
CREATE INDEX "usage_hourly_tags_project_id_hour_index" ON "usage_hourly_tags" ("project_id","hour");