CREATE TABLE "relabel_outputs" (
	"run_id" text,
	"entry_id" text,
	"base_hash" text,
	"current" jsonb,
	"output" jsonb,
	"error" text,
	"verdicts" jsonb DEFAULT '[]' NOT NULL,
	"current_verdicts" jsonb DEFAULT '[]' NOT NULL,
	"decision" text,
	"decided_at" timestamp with time zone,
	"generated_at" timestamp with time zone,
	CONSTRAINT "relabel_outputs_pkey" PRIMARY KEY("run_id","entry_id")
);
--> statement-breakpoint
CREATE TABLE "relabel_runs" (
	"id" text PRIMARY KEY,
	"project_id" text NOT NULL,
	"dataset_id" text NOT NULL,
	"name" text NOT NULL,
	"model" text NOT NULL,
	"criteria" jsonb DEFAULT '[]' NOT NULL,
	"monitor_id" text,
	"status" text NOT NULL,
	"total" integer DEFAULT 0 NOT NULL,
	"done" integer DEFAULT 0 NOT NULL,
	"cost_usd" double precision DEFAULT 0 NOT NULL,
	"error_message" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "dataset_entries" ADD COLUMN "rejected_outputs" jsonb DEFAULT '[]' NOT NULL;--> statement-breakpoint
CREATE INDEX "relabel_outputs_entry_id_index" ON "relabel_outputs" ("entry_id");--> statement-breakpoint
CREATE INDEX "relabel_runs_project_id_id_index" ON "relabel_runs" ("project_id","id");--> statement-breakpoint
CREATE INDEX "relabel_runs_dataset_id_index" ON "relabel_runs" ("dataset_id");--> statement-breakpoint
ALTER TABLE "relabel_outputs" ADD CONSTRAINT "relabel_outputs_run_id_relabel_runs_id_fkey" FOREIGN KEY ("run_id") REFERENCES "relabel_runs"("id") ON DELETE CASCADE;--> statement-breakpoint
ALTER TABLE "relabel_outputs" ADD CONSTRAINT "relabel_outputs_entry_id_dataset_entries_id_fkey" FOREIGN KEY ("entry_id") REFERENCES "dataset_entries"("id") ON DELETE CASCADE;--> statement-breakpoint
ALTER TABLE "relabel_runs" ADD CONSTRAINT "relabel_runs_project_id_projects_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE;--> statement-breakpoint
ALTER TABLE "relabel_runs" ADD CONSTRAINT "relabel_runs_dataset_id_datasets_id_fkey" FOREIGN KEY ("dataset_id") REFERENCES "datasets"("id") ON DELETE CASCADE;