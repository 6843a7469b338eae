ALTER TABLE "request_logs" ADD COLUMN "attempts" jsonb;--> statement-breakpoint
ALTER TABLE "request_logs" ADD COLUMN "route" text;--> statement-breakpoint
ALTER TABLE "request_logs" ADD COLUMN "route_version" text;