CREATE TABLE "dataset_tasks" (
	"id" text PRIMARY KEY,
	"project_id" text NOT NULL,
	"dataset_id" text NOT NULL,
	"kind" text NOT NULL,
	"criterion_id" text NOT NULL,
	"criterion_version" integer NOT NULL,
	"model" text,
	"status" text NOT NULL,
	"total" integer DEFAULT 0 NOT NULL,
	"done" integer DEFAULT 0 NOT NULL,
	"error_message" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "entry_verdicts" (
	"entry_id" text,
	"criterion_id" text,
	"version" integer NOT NULL,
	"judgement" text,
	"explanation" text,
	"error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "entry_verdicts_pkey" PRIMARY KEY("entry_id","criterion_id")
);
--> statement-breakpoint
CREATE TABLE "evaluation_results" (
	"evaluation_id" text,
	"entry_id" text,
	"model" text,
	"output" jsonb,
	"error" text,
	"input_tokens" integer,
	"output_tokens" integer,
	"cost_usd" double precision,
	"latency_ms" integer,
	"verdicts" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "evaluation_results_pkey" PRIMARY KEY("evaluation_id","entry_id","model")
);
--> statement-breakpoint
CREATE TABLE "evaluations" (
	"id" text PRIMARY KEY,
	"project_id" text NOT NULL,
	"dataset_id" text,
	"models" jsonb NOT NULL,
	"criteria" jsonb NOT NULL,
	"status" text NOT NULL,
	"total" integer NOT NULL,
	"error_message" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "dataset_entries" ADD COLUMN "original_messages" jsonb;--> statement-breakpoint
ALTER TABLE "dataset_entries" ADD COLUMN "relabeled_by" text;--> statement-breakpoint
ALTER TABLE "dataset_entries" ADD COLUMN "relabeled_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "models" ADD COLUMN "exclude_failing" jsonb DEFAULT '[]' NOT NULL;--> statement-breakpoint
CREATE INDEX "entry_verdicts_criterion_id_judgement_index" ON "entry_verdicts" ("criterion_id","judgement");--> statement-breakpoint
CREATE INDEX "evaluations_project_id_id_index" ON "evaluations" ("project_id","id");--> statement-breakpoint
ALTER TABLE "dataset_tasks" ADD CONSTRAINT "dataset_tasks_project_id_projects_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE;--> statement-breakpoint
ALTER TABLE "dataset_tasks" ADD CONSTRAINT "dataset_tasks_dataset_id_datasets_id_fkey" FOREIGN KEY ("dataset_id") REFERENCES "datasets"("id") ON DELETE CASCADE;--> statement-breakpoint
ALTER TABLE "entry_verdicts" ADD CONSTRAINT "entry_verdicts_entry_id_dataset_entries_id_fkey" FOREIGN KEY ("entry_id") REFERENCES "dataset_entries"("id") ON DELETE CASCADE;--> statement-breakpoint
ALTER TABLE "evaluation_results" ADD CONSTRAINT "evaluation_results_evaluation_id_evaluations_id_fkey" FOREIGN KEY ("evaluation_id") REFERENCES "evaluations"("id") ON DELETE CASCADE;--> statement-breakpoint
ALTER TABLE "evaluations" ADD CONSTRAINT "evaluations_project_id_projects_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE;--> statement-breakpoint
ALTER TABLE "evaluations" ADD CONSTRAINT "evaluations_dataset_id_datasets_id_fkey" FOREIGN KEY ("dataset_id") REFERENCES "datasets"("id") ON DELETE SET NULL;