ALTER TABLE "api_keys" ADD COLUMN "created_by" text;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "owner" text DEFAULT 'project' NOT NULL;--> statement-breakpoint
ALTER TABLE "limits" ADD COLUMN "unpriced_calls" text DEFAULT 'refuse' NOT NULL;--> statement-breakpoint
CREATE INDEX "api_keys_created_by_index" ON "api_keys" ("created_by");--> statement-breakpoint
CREATE INDEX "stored_responses_output_item_ids_index" ON "stored_responses" USING gin (jsonb_path_query_array("response", '$.output[*].id'));--> statement-breakpoint
CREATE INDEX "stored_responses_input_item_ids_index" ON "stored_responses" USING gin (jsonb_path_query_array("input", '$[*].id'));