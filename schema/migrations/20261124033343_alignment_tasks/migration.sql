CREATE TABLE "alignment_tasks" (
	"id" text PRIMARY KEY,
	"project_id" text NOT NULL,
	"criterion_id" text NOT NULL,
	"version" integer NOT NULL,
	"status" text NOT NULL,
	"total" integer DEFAULT 0 NOT NULL,
	"done" integer DEFAULT 0 NOT NULL,
	"stats" jsonb,
	"error_message" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "alignment_tasks_criterion_id_id_index" ON "alignment_tasks" ("criterion_id","id");--> statement-breakpoint
ALTER TABLE "alignment_tasks" ADD CONSTRAINT "alignment_tasks_project_id_projects_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE;--> statement-breakpoint
ALTER TABLE "alignment_tasks" ADD CONSTRAINT "alignment_tasks_criterion_id_criteria_id_fkey" FOREIGN KEY ("criterion_id") REFERENCES "criteria"("id") ON DELETE CASCADE;