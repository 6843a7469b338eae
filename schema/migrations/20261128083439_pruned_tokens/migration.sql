ALTER TABLE "request_logs" ADD COLUMN "pruned_tokens" integer;--> statement-breakpoint
ALTER TABLE "models" ADD COLUMN "pruning_rule_tokens" jsonb;