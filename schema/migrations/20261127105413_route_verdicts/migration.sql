CREATE TABLE "route_verdicts" (
	"id" text PRIMARY KEY,
	"project_id" text NOT NULL,
	"route" text NOT NULL,
	"version" text,
	"passed" boolean,
	"error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "route_verdicts_project_id_route_created_at_index" ON "route_verdicts" ("project_id","route","created_at");--> statement-breakpoint
ALTER TABLE "route_verdicts" ADD CONSTRAINT "route_verdicts_project_id_projects_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE;