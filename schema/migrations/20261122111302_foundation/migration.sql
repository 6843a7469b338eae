CREATE TABLE "api_keys" (
	"id" text PRIMARY KEY,
	"project_id" text NOT NULL,
	"key_hash" text NOT NULL UNIQUE,
	"key_hint" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"revoked_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "projects" (
	"id" text PRIMARY KEY,
	"name" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "dataset_entries" (
	"id" text PRIMARY KEY,
	"dataset_id" text NOT NULL,
	"project_id" text NOT NULL,
	"messages" jsonb NOT NULL,
	"tools" jsonb,
	"tool_choice" jsonb,
	"response_format" jsonb,
	"metadata" jsonb DEFAULT '{}' NOT NULL,
	"split" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "dataset_entries_split_check" CHECK ("split" in ('TRAIN', 'TEST'))
);
--> statement-breakpoint
CREATE TABLE "datasets" (
	"id" text PRIMARY KEY,
	"project_id" text NOT NULL,
	"name" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "api_keys_project_id_index" ON "api_keys" ("project_id");--> statement-breakpoint
CREATE INDEX "dataset_entries_dataset_id_id_index" ON "dataset_entries" ("dataset_id","id");--> statement-breakpoint
CREATE INDEX "datasets_project_id_id_index" ON "datasets" ("project_id","id");--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_project_id_projects_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE;--> statement-breakpoint
ALTER TABLE "dataset_entries" ADD CONSTRAINT "dataset_entries_dataset_id_datasets_id_fkey" FOREIGN KEY ("dataset_id") REFERENCES "datasets"("id") ON DELETE CASCADE;--> statement-breakpoint
ALTER TABLE "datasets" ADD CONSTRAINT "datasets_project_id_projects_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE;