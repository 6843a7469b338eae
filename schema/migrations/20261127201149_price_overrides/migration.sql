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
CREATE INDEX "cost_recalculations_project_id_id_index" ON "cost_recalculations" ("project_id","id");--> statement-breakpoint
CREATE INDEX "price_overrides_project_id_model_effective_from_index" ON "price_overrides" ("project_id","model","effective_from");--> statement-breakpoint
ALTER TABLE "cost_recalculations" ADD CONSTRAINT "cost_recalculations_project_id_projects_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE;--> statement-breakpoint
ALTER TABLE "price_overrides" ADD CONSTRAINT "price_overrides_project_id_projects_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE;