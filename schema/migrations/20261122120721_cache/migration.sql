CREATE TABLE "cache_entries" (
	"project_id" text,
	"key" text,
	"response" jsonb NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "cache_entries_pkey" PRIMARY KEY("project_id","key")
);
--> statement-breakpoint
CREATE INDEX "cache_entries_expires_at_index" ON "cache_entries" ("expires_at");--> statement-breakpoint
ALTER TABLE "cache_entries" ADD CONSTRAINT "cache_entries_project_id_projects_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE;