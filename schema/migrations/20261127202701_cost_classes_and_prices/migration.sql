CREATE TABLE "cost_recalculations" (
	"id" text PRIMARY KEY,
	"project_id" text NOT NULL,
	"filter" jsonb NOT NULL,
	"status" text NOT NULL,
	"total" integer DEFAULT 0 NOT NULL,
	"done" integer DEFAULT 0 NOT NULL,
	"changed" integer DEFAULT 0 NOT NULL,
	"cursor" text,
	"error_message" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "price_overrides" (
	"id" text PRIMARY KEY,
	"project_id" text NOT NULL,
	"model" text NOT NULL,
	"effective_from" timestamp with time zone NOT NULL,
	"rates" jsonb,
	"multiplier" double precision,
	"usd_per_hour" double precision,
	"note" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "request_logs" ADD COLUMN "classes" jsonb;--> statement-breakpoint
ALTER TABLE "request_logs" ADD COLUMN "price_version" text;--> statement-breakpoint
ALTER TABLE "request_logs" ADD COLUMN "cost_flag" text;--> statement-breakpoint
ALTER TABLE "usage_daily" ADD COLUMN "unpriced" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_daily" ADD COLUMN "class_input_tokens" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_daily" ADD COLUMN "class_input_usd" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_daily" ADD COLUMN "class_cache_read_tokens" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_daily" ADD COLUMN "class_cache_read_usd" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_daily" ADD COLUMN "class_cache_write_5m_tokens" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_daily" ADD COLUMN "class_cache_write_5m_usd" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_daily" ADD COLUMN "class_cache_write_1h_tokens" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_daily" ADD COLUMN "class_cache_write_1h_usd" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_daily" ADD COLUMN "class_audio_input_tokens" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_daily" ADD COLUMN "class_audio_input_usd" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_daily" ADD COLUMN "class_output_tokens" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_daily" ADD COLUMN "class_output_usd" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_daily" ADD COLUMN "class_reasoning_tokens" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_daily" ADD COLUMN "class_reasoning_usd" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_daily" ADD COLUMN "class_audio_output_tokens" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_daily" ADD COLUMN "class_audio_output_usd" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_daily" ADD COLUMN "class_compute_seconds" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_daily" ADD COLUMN "class_compute_usd" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_daily_tags" ADD COLUMN "unpriced" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_daily_tags" ADD COLUMN "class_input_tokens" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_daily_tags" ADD COLUMN "class_input_usd" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_daily_tags" ADD COLUMN "class_cache_read_tokens" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_daily_tags" ADD COLUMN "class_cache_read_usd" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_daily_tags" ADD COLUMN "class_cache_write_5m_tokens" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_daily_tags" ADD COLUMN "class_cache_write_5m_usd" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_daily_tags" ADD COLUMN "class_cache_write_1h_tokens" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_daily_tags" ADD COLUMN "class_cache_write_1h_usd" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_daily_tags" ADD COLUMN "class_audio_input_tokens" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_daily_tags" ADD COLUMN "class_audio_input_usd" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_daily_tags" ADD COLUMN "class_output_tokens" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_daily_tags" ADD COLUMN "class_output_usd" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_daily_tags" ADD COLUMN "class_reasoning_tokens" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_daily_tags" ADD COLUMN "class_reasoning_usd" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_daily_tags" ADD COLUMN "class_audio_output_tokens" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_daily_tags" ADD COLUMN "class_audio_output_usd" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_daily_tags" ADD COLUMN "class_compute_seconds" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_daily_tags" ADD COLUMN "class_compute_usd" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_hourly" ADD COLUMN "unpriced" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_hourly" ADD COLUMN "class_input_tokens" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_hourly" ADD COLUMN "class_input_usd" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_hourly" ADD COLUMN "class_cache_read_tokens" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_hourly" ADD COLUMN "class_cache_read_usd" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_hourly" ADD COLUMN "class_cache_write_5m_tokens" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_hourly" ADD COLUMN "class_cache_write_5m_usd" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_hourly" ADD COLUMN "class_cache_write_1h_tokens" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_hourly" ADD COLUMN "class_cache_write_1h_usd" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_hourly" ADD COLUMN "class_audio_input_tokens" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_hourly" ADD COLUMN "class_audio_input_usd" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_hourly" ADD COLUMN "class_output_tokens" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_hourly" ADD COLUMN "class_output_usd" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_hourly" ADD COLUMN "class_reasoning_tokens" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_hourly" ADD COLUMN "class_reasoning_usd" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_hourly" ADD COLUMN "class_audio_output_tokens" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_hourly" ADD COLUMN "class_audio_output_usd" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_hourly" ADD COLUMN "class_compute_seconds" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_hourly" ADD COLUMN "class_compute_usd" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_hourly_tags" ADD COLUMN "unpriced" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_hourly_tags" ADD COLUMN "class_input_tokens" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_hourly_tags" ADD COLUMN "class_input_usd" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_hourly_tags" ADD COLUMN "class_cache_read_tokens" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_hourly_tags" ADD COLUMN "class_cache_read_usd" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_hourly_tags" ADD COLUMN "class_cache_write_5m_tokens" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_hourly_tags" ADD COLUMN "class_cache_write_5m_usd" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_hourly_tags" ADD COLUMN "class_cache_write_1h_tokens" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_hourly_tags" ADD COLUMN "class_cache_write_1h_usd" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_hourly_tags" ADD COLUMN "class_audio_input_tokens" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_hourly_tags" ADD COLUMN "class_audio_input_usd" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_hourly_tags" ADD COLUMN "class_output_tokens" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_hourly_tags" ADD COLUMN "class_output_usd" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_hourly_tags" ADD COLUMN "class_reasoning_tokens" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_hourly_tags" ADD COLUMN "class_reasoning_usd" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_hourly_tags" ADD COLUMN "class_audio_output_tokens" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_hourly_tags" ADD COLUMN "class_audio_output_usd" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_hourly_tags" ADD COLUMN "class_compute_seconds" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_hourly_tags" ADD COLUMN "class_compute_usd" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX "cost_recalculations_project_id_id_index" ON "cost_recalculations" ("project_id","id");--> statement-breakpoint
CREATE INDEX "price_overrides_project_id_model_effective_from_index" ON "price_overrides" ("project_id","model","effective_from");--> statement-breakpoint
ALTER TABLE "cost_recalculations" ADD CONSTRAINT "cost_recalculations_project_id_projects_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE;--> statement-breakpoint
ALTER TABLE "price_overrides" ADD CONSTRAINT "price_overrides_project_id_projects_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE;