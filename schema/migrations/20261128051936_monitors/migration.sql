CREATE TABLE "monitor_logs" (
	"monitor_id" text,
	"log_id" text,
	"outcome" text,
	"claimed_by" text,
	"attempts" integer DEFAULT 0 NOT NULL,
	"claimed_until" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "monitor_logs_pkey" PRIMARY KEY("monitor_id","log_id")
);
--> statement-breakpoint
CREATE TABLE "monitors" (
	"id" text PRIMARY KEY,
	"project_id" text NOT NULL,
	"name" text NOT NULL,
	"filter" jsonb DEFAULT '{}' NOT NULL,
	"include_internal" boolean DEFAULT false NOT NULL,
	"criterion" text,
	"keep_on" text DEFAULT 'PASS' NOT NULL,
	"sample_rate" double precision NOT NULL,
	"dataset_id" text NOT NULL,
	"test_fraction" double precision NOT NULL,
	"status" text NOT NULL,
	"last_error" text,
	"sampled" integer DEFAULT 0 NOT NULL,
	"matched" integer DEFAULT 0 NOT NULL,
	"judged" integer DEFAULT 0 NOT NULL,
	"rejected" integer DEFAULT 0 NOT NULL,
	"added" integer DEFAULT 0 NOT NULL,
	"duplicates" integer DEFAULT 0 NOT NULL,
	"invalid" integer DEFAULT 0 NOT NULL,
	"judge_cost_usd" double precision DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "monitors_status_check" CHECK ("status" in ('ACTIVE', 'PAUSED')),
	CONSTRAINT "monitors_keep_on_check" CHECK ("keep_on" in ('PASS', 'FAIL'))
);
--> statement-breakpoint
ALTER TABLE "dataset_entries" ADD COLUMN "monitor_id" text;--> statement-breakpoint
CREATE INDEX "dataset_entries_monitor_id_index" ON "dataset_entries" ("monitor_id");--> statement-breakpoint
CREATE INDEX "monitor_logs_waiting" ON "monitor_logs" ("monitor_id","log_id") WHERE "outcome" is null;--> statement-breakpoint
CREATE INDEX "monitors_project_id_id_index" ON "monitors" ("project_id","id");--> statement-breakpoint
CREATE INDEX "monitors_active" ON "monitors" ("project_id") WHERE "status" = 'ACTIVE';--> statement-breakpoint
ALTER TABLE "monitor_logs" ADD CONSTRAINT "monitor_logs_monitor_id_monitors_id_fkey" FOREIGN KEY ("monitor_id") REFERENCES "monitors"("id") ON DELETE CASCADE;--> statement-breakpoint
ALTER TABLE "monitors" ADD CONSTRAINT "monitors_project_id_projects_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE;--> statement-breakpoint
ALTER TABLE "monitors" ADD CONSTRAINT "monitors_dataset_id_datasets_id_fkey" FOREIGN KEY ("dataset_id") REFERENCES "datasets"("id") ON DELETE CASCADE;