CREATE TABLE "pruning_rules" (
	"id" text PRIMARY KEY,
	"project_id" text NOT NULL,
	"dataset_id" text NOT NULL,
	"text" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "models" ADD COLUMN "pruning_rules" jsonb DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE "models" ADD COLUMN "pruned_tokens" integer;--> statement-breakpoint
CREATE INDEX "pruning_rules_dataset_id_index" ON "pruning_rules" ("dataset_id");--> statement-breakpoint
ALTER TABLE "pruning_rules" ADD CONSTRAINT "pruning_rules_dataset_id_datasets_id_fkey" FOREIGN KEY ("dataset_id") REFERENCES "datasets"("id") ON DELETE CASCADE;