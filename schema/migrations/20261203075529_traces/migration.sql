ALTER TABLE "request_logs" ADD COLUMN "trace_id" text;--> statement-breakpoint
ALTER TABLE "request_logs" ADD COLUMN "span_id" text;--> statement-breakpoint
ALTER TABLE "request_logs" ADD COLUMN "parent_span_id" text;--> statement-breakpoint
ALTER TABLE "request_logs" ADD COLUMN "session_id" text;--> statement-breakpoint
CREATE INDEX "request_logs_trace" ON "request_logs" ("project_id","trace_id") WHERE "trace_id" is not null;--> statement-breakpoint
CREATE INDEX "request_logs_session" ON "request_logs" ("project_id","session_id","id") WHERE "session_id" is not null;