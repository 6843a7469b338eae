ALTER TABLE "request_logs" ADD COLUMN "cached_input_tokens" integer;--> statement-breakpoint
ALTER TABLE "request_logs" ADD COLUMN "cache_write_tokens" integer;--> statement-breakpoint
ALTER TABLE "request_logs" ADD COLUMN "reasoning_tokens" integer;