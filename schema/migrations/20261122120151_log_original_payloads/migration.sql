ALTER TABLE "request_log_bodies" ADD COLUMN "req_payload_original" jsonb;--> statement-breakpoint
ALTER TABLE "request_log_bodies" ADD COLUMN "resp_payload_original" jsonb;