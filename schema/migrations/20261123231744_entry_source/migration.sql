ALTER TABLE "dataset_entries" ADD COLUMN "source" text DEFAULT 'manual' NOT NULL;--> statement-breakpoint
-- Backfill: an entry that still names its log came from a log. Entries whose log retention already
-- deleted, and JSONL uploads made before this column, cannot be told apart from manual ones: they stay 'manual'.
UPDATE "dataset_entries" SET "source" = 'log' WHERE "source_log_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "dataset_entries_dataset_id_split_index" ON "dataset_entries" ("dataset_id","split");--> statement-breakpoint
ALTER TABLE "dataset_entries" ADD CONSTRAINT "dataset_entries_source_check" CHECK ("source" in ('log', 'upload', 'manual'));