CREATE TABLE "trace_spans" (
	"project_id" text,
	"trace_id" text,
	"span_id" text,
	"parent_span_id" text,
	"name" text NOT NULL,
	"kind" text,
	"operation" text,
	"service" text,
	"session_id" text,
	"started_at" timestamp with time zone,
	"ended_at" timestamp with time zone,
	"duration_ms" double precision,
	"status" smallint DEFAULT 0 NOT NULL,
	"status_message" text,
	"log_id" text,
	"attributes" jsonb DEFAULT '{}' NOT NULL,
	"events" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "trace_spans_pkey" PRIMARY KEY("project_id","trace_id","span_id")
);
--> statement-breakpoint
ALTER TABLE "request_logs" ADD COLUMN "trace_id" text;--> statement-breakpoint
ALTER TABLE "request_logs" ADD COLUMN "span_id" text;--> statement-breakpoint
ALTER TABLE "request_logs" ADD COLUMN "parent_span_id" text;--> statement-breakpoint
ALTER TABLE "request_logs" ADD COLUMN "session_id" text;--> statement-breakpoint
CREATE INDEX "request_logs_trace" ON "request_logs" ("project_id","trace_id") WHERE "trace_id" is not null;--> statement-breakpoint
CREATE INDEX "request_logs_session" ON "request_logs" ("project_id","session_id","id") WHERE "session_id" is not null;--> statement-breakpoint
CREATE INDEX "trace_spans_project_id_started_at_index" ON "trace_spans" ("project_id","started_at");--> statement-breakpoint
CREATE INDEX "trace_spans_project_id_session_id_started_at_index" ON "trace_spans" ("project_id","session_id","started_at");--> statement-breakpoint
CREATE INDEX "trace_spans_created_at_index" ON "trace_spans" ("created_at");--> statement-breakpoint
ALTER TABLE "trace_spans" ADD CONSTRAINT "trace_spans_project_id_projects_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE;