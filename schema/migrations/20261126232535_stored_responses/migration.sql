CREATE TABLE "stored_responses" (
	"id" text PRIMARY KEY,
	"project_id" text NOT NULL,
	"previous_response_id" text,
	"input" jsonb NOT NULL,
	"response" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "stored_responses_project_id_id_index" ON "stored_responses" ("project_id","id");--> statement-breakpoint
ALTER TABLE "stored_responses" ADD CONSTRAINT "stored_responses_project_id_projects_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE;