ALTER TABLE "request_logs" ADD COLUMN "refusal" text;--> statement-breakpoint
ALTER TABLE "request_logs" ADD COLUMN "refusals" integer;--> statement-breakpoint
ALTER TABLE "usage_daily" ADD COLUMN "refused" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_daily_tags" ADD COLUMN "refused" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_hourly" ADD COLUMN "refused" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_hourly_tags" ADD COLUMN "refused" integer DEFAULT 0 NOT NULL;