ALTER TABLE "request_logs" ADD COLUMN "classes" jsonb;--> statement-breakpoint
ALTER TABLE "request_logs" ADD COLUMN "price_version" text;--> statement-breakpoint
ALTER TABLE "request_logs" ADD COLUMN "cost_flag" text;--> statement-breakpoint
ALTER TABLE "usage_daily" ADD COLUMN "classes" jsonb DEFAULT '{}' NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_daily" ADD COLUMN "unpriced" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_daily_tags" ADD COLUMN "classes" jsonb DEFAULT '{}' NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_daily_tags" ADD COLUMN "unpriced" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_hourly" ADD COLUMN "classes" jsonb DEFAULT '{}' NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_hourly" ADD COLUMN "unpriced" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_hourly_tags" ADD COLUMN "classes" jsonb DEFAULT '{}' NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_hourly_tags" ADD COLUMN "unpriced" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Maps of sums ({input_tokens: n, input_usd: x, ...}) minus another: what deleting logs takes out of a rollup's classes.
CREATE OR REPLACE FUNCTION hone_map_sub(a jsonb, b jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
  SELECT coalesce(jsonb_object_agg(key, n), '{}'::jsonb) FROM (
    SELECT key, value::float8 - coalesce((b ->> key)::float8, 0) AS n FROM jsonb_each_text(a)
  ) s WHERE n <> 0
$fn$;
