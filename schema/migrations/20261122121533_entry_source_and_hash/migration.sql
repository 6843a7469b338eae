ALTER TABLE "dataset_entries" ADD COLUMN "source_log_id" text;--> statement-breakpoint
ALTER TABLE "dataset_entries" ADD COLUMN "content_hash" text;--> statement-breakpoint
CREATE INDEX "dataset_entries_dataset_id_content_hash_index" ON "dataset_entries" ("dataset_id","content_hash");--> statement-breakpoint
CREATE INDEX "dataset_entries_source_log_id_index" ON "dataset_entries" ("source_log_id");--> statement-breakpoint
ALTER TABLE "dataset_entries" ADD CONSTRAINT "dataset_entries_source_log_id_request_logs_id_fkey" FOREIGN KEY ("source_log_id") REFERENCES "request_logs"("id") ON DELETE SET NULL;