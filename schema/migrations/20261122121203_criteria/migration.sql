CREATE TABLE "alignment_rows" (
	"id" text PRIMARY KEY,
	"criterion_id" text NOT NULL,
	"messages" jsonb NOT NULL,
	"tools" jsonb,
	"tool_choice" jsonb,
	"output" jsonb NOT NULL,
	"judgement" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "alignment_runs" (
	"criterion_id" text,
	"version" integer,
	"stats" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "alignment_runs_pkey" PRIMARY KEY("criterion_id","version")
);
--> statement-breakpoint
CREATE TABLE "alignment_verdicts" (
	"row_id" text,
	"version" integer,
	"verdict" text,
	"explanation" text,
	"error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "alignment_verdicts_pkey" PRIMARY KEY("row_id","version")
);
--> statement-breakpoint
CREATE TABLE "criteria" (
	"id" text PRIMARY KEY,
	"project_id" text NOT NULL,
	"name" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "criterion_versions" (
	"criterion_id" text,
	"version" integer,
	"judge_model" text NOT NULL,
	"prompt" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "criterion_versions_pkey" PRIMARY KEY("criterion_id","version")
);
--> statement-breakpoint
CREATE INDEX "alignment_rows_criterion_id_id_index" ON "alignment_rows" ("criterion_id","id");--> statement-breakpoint
CREATE INDEX "criteria_project_id_id_index" ON "criteria" ("project_id","id");--> statement-breakpoint
ALTER TABLE "alignment_rows" ADD CONSTRAINT "alignment_rows_criterion_id_criteria_id_fkey" FOREIGN KEY ("criterion_id") REFERENCES "criteria"("id") ON DELETE CASCADE;--> statement-breakpoint
ALTER TABLE "alignment_runs" ADD CONSTRAINT "alignment_runs_criterion_id_criteria_id_fkey" FOREIGN KEY ("criterion_id") REFERENCES "criteria"("id") ON DELETE CASCADE;--> statement-breakpoint
ALTER TABLE "alignment_verdicts" ADD CONSTRAINT "alignment_verdicts_row_id_alignment_rows_id_fkey" FOREIGN KEY ("row_id") REFERENCES "alignment_rows"("id") ON DELETE CASCADE;--> statement-breakpoint
ALTER TABLE "criteria" ADD CONSTRAINT "criteria_project_id_projects_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE;--> statement-breakpoint
ALTER TABLE "criterion_versions" ADD CONSTRAINT "criterion_versions_criterion_id_criteria_id_fkey" FOREIGN KEY ("criterion_id") REFERENCES "criteria"("id") ON DELETE CASCADE;