CREATE TABLE "console_sessions" (
	"id" text PRIMARY KEY,
	"token_hash" text NOT NULL UNIQUE,
	"project_id" text,
	"api_key_id" text,
	"is_admin" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_seen_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"revoked_at" timestamp with time zone
);
--> statement-breakpoint
CREATE INDEX "console_sessions_api_key_id_index" ON "console_sessions" ("api_key_id");--> statement-breakpoint
CREATE INDEX "console_sessions_expires_at_index" ON "console_sessions" ("expires_at");--> statement-breakpoint
ALTER TABLE "console_sessions" ADD CONSTRAINT "console_sessions_project_id_projects_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE SET NULL;--> statement-breakpoint
ALTER TABLE "console_sessions" ADD CONSTRAINT "console_sessions_api_key_id_api_keys_id_fkey" FOREIGN KEY ("api_key_id") REFERENCES "api_keys"("id") ON DELETE CASCADE;