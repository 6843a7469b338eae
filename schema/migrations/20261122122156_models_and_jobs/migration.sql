CREATE TABLE "jobs" (
	"id" text PRIMARY KEY,
	"kind" text NOT NULL,
	"payload" jsonb NOT NULL,
	"status" text NOT NULL,
	"run_at" timestamp with time zone NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"max_attempts" integer DEFAULT 5 NOT NULL,
	"locked_by" text,
	"locked_until" timestamp with time zone,
	"last_error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "models" (
	"id" text PRIMARY KEY,
	"project_id" text NOT NULL,
	"slug" text NOT NULL,
	"description" text,
	"dataset_id" text,
	"base_model" text NOT NULL,
	"backend" text NOT NULL,
	"hyperparameters" jsonb DEFAULT '{}' NOT NULL,
	"status" text NOT NULL,
	"error_message" text,
	"training_file_id" text,
	"upstream_job_id" text,
	"upstream_model_id" text,
	"training_entries" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "jobs_status_run_at_index" ON "jobs" ("status","run_at");--> statement-breakpoint
CREATE UNIQUE INDEX "models_project_id_slug_index" ON "models" ("project_id","slug");--> statement-breakpoint
CREATE INDEX "models_dataset_id_index" ON "models" ("dataset_id");--> statement-breakpoint
ALTER TABLE "models" ADD CONSTRAINT "models_project_id_projects_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE;--> statement-breakpoint
ALTER TABLE "models" ADD CONSTRAINT "models_dataset_id_datasets_id_fkey" FOREIGN KEY ("dataset_id") REFERENCES "datasets"("id") ON DELETE SET NULL;