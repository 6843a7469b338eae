CREATE TABLE "masking_backfills" (
	"id" text PRIMARY KEY,
	"project_id" text NOT NULL,
	"status" text NOT NULL,
	"phase" text DEFAULT 'logs' NOT NULL,
	"cursor" text,
	"kinds" jsonb,
	"total" integer DEFAULT 0 NOT NULL,
	"done" integer DEFAULT 0 NOT NULL,
	"changed" integer DEFAULT 0 NOT NULL,
	"error_message" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "masking_recognizers" (
	"id" text PRIMARY KEY,
	"project_id" text NOT NULL,
	"kind" text NOT NULL,
	"pattern" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "masking_rules" (
	"id" text PRIMARY KEY,
	"project_id" text NOT NULL,
	"scope" text NOT NULL,
	"subject" text DEFAULT '' NOT NULL,
	"mode" text NOT NULL,
	"kinds" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "request_logs" ADD COLUMN "masked" jsonb;--> statement-breakpoint
ALTER TABLE "request_logs" ADD COLUMN "masking" text;--> statement-breakpoint
CREATE INDEX "masking_backfills_project_id_id_index" ON "masking_backfills" ("project_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "masking_recognizers_project_id_kind_index" ON "masking_recognizers" ("project_id","kind");--> statement-breakpoint
CREATE UNIQUE INDEX "masking_rules_project_id_scope_subject_index" ON "masking_rules" ("project_id","scope","subject");--> statement-breakpoint
ALTER TABLE "masking_backfills" ADD CONSTRAINT "masking_backfills_project_id_projects_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE;--> statement-breakpoint
ALTER TABLE "masking_recognizers" ADD CONSTRAINT "masking_recognizers_project_id_projects_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE;--> statement-breakpoint
ALTER TABLE "masking_rules" ADD CONSTRAINT "masking_rules_project_id_projects_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE;