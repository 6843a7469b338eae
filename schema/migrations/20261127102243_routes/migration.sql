CREATE TABLE "routes" (
	"id" text PRIMARY KEY,
	"project_id" text NOT NULL,
	"slug" text NOT NULL,
	"config" jsonb NOT NULL,
	"previous_config" jsonb,
	"revision" integer DEFAULT 1 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "routes_project_id_slug_index" ON "routes" ("project_id","slug");--> statement-breakpoint
ALTER TABLE "routes" ADD CONSTRAINT "routes_project_id_projects_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE;