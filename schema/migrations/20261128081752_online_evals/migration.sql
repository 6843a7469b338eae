CREATE TABLE "online_evals" (
	"id" text PRIMARY KEY,
	"project_id" text NOT NULL,
	"model" text NOT NULL,
	"criteria" text[] NOT NULL,
	"sample_rate" double precision NOT NULL,
	"alert_below" double precision,
	"alert_min_judged" integer DEFAULT 20 NOT NULL,
	"status" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "online_evals_status_check" CHECK ("status" in ('ACTIVE', 'PAUSED'))
);
--> statement-breakpoint
ALTER TABLE "route_verdicts" ADD COLUMN "model" text;--> statement-breakpoint
ALTER TABLE "route_verdicts" ALTER COLUMN "route" DROP NOT NULL;--> statement-breakpoint
CREATE INDEX "route_verdicts_project_id_model_created_at_index" ON "route_verdicts" ("project_id","model","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "online_evals_project_id_model_index" ON "online_evals" ("project_id","model");--> statement-breakpoint
CREATE INDEX "online_evals_project_id_id_index" ON "online_evals" ("project_id","id");--> statement-breakpoint
ALTER TABLE "online_evals" ADD CONSTRAINT "online_evals_project_id_projects_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE;