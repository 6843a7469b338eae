ALTER TABLE "models" ADD COLUMN "method" text DEFAULT 'sft' NOT NULL;--> statement-breakpoint
ALTER TABLE "models" ADD COLUMN "dpo_beta" double precision;