CREATE TABLE "usage_daily" (
	"project_id" text NOT NULL,
	"day" timestamp with time zone NOT NULL,
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
CREATE TABLE "usage_daily_tags" (
	"project_id" text NOT NULL,
	"day" timestamp with time zone NOT NULL,
	"tag" text,
	"requests" integer NOT NULL,
	"errors" integer NOT NULL,
	"input_tokens" double precision NOT NULL,
	"output_tokens" double precision NOT NULL,
	"cost_usd" double precision NOT NULL,
	"latency" jsonb NOT NULL
);
--> statement-breakpoint
CREATE INDEX "usage_daily_project_id_day_index" ON "usage_daily" ("project_id","day");--> statement-breakpoint
CREATE INDEX "usage_daily_tags_project_id_day_index" ON "usage_daily_tags" ("project_id","day");