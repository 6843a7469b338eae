ALTER TABLE "models" ADD COLUMN "training_curve" jsonb DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE "models" ADD COLUMN "checkpoints" jsonb DEFAULT '[]' NOT NULL;