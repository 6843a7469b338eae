ALTER TABLE "dataset_entries" ADD COLUMN "bytes" integer;--> statement-breakpoint
ALTER TABLE "dataset_entries" ADD COLUMN "import_id" text;--> statement-breakpoint
ALTER TABLE "request_logs" ADD COLUMN "req_bytes" integer;--> statement-breakpoint
ALTER TABLE "request_logs" ADD COLUMN "resp_bytes" integer;--> statement-breakpoint
ALTER TABLE "request_logs" ADD COLUMN "warning" text;--> statement-breakpoint
ALTER TABLE "alignment_rows" ADD COLUMN "bytes" integer;--> statement-breakpoint
ALTER TABLE "evaluation_results" ADD COLUMN "bytes" integer;--> statement-breakpoint
CREATE INDEX "dataset_entries_import_id_index" ON "dataset_entries" ("import_id");--> statement-breakpoint
-- What an answer carrying these rows will weigh, kept by the database on every write (whatever
-- verb writes them), so a read can be sized before the content is loaded. jsonb's text form is a
-- little larger than compact JSON: the count errs on the high side.
CREATE OR REPLACE FUNCTION hone_entry_bytes() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  NEW.bytes := octet_length(NEW.messages::text) + coalesce(octet_length(NEW.tools::text), 0)
    + coalesce(octet_length(NEW.tool_choice::text), 0) + coalesce(octet_length(NEW.response_format::text), 0)
    + coalesce(octet_length(NEW.metadata::text), 0) + coalesce(octet_length(NEW.original_messages::text), 0);
  RETURN NEW;
END
$fn$;--> statement-breakpoint
CREATE TRIGGER dataset_entries_bytes BEFORE INSERT OR UPDATE OF messages, tools, tool_choice, response_format, metadata, original_messages
  ON dataset_entries FOR EACH ROW EXECUTE FUNCTION hone_entry_bytes();--> statement-breakpoint
CREATE OR REPLACE FUNCTION hone_alignment_row_bytes() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  NEW.bytes := octet_length(NEW.messages::text) + coalesce(octet_length(NEW.tools::text), 0)
    + coalesce(octet_length(NEW.tool_choice::text), 0) + octet_length(NEW.output::text);
  RETURN NEW;
END
$fn$;--> statement-breakpoint
CREATE TRIGGER alignment_rows_bytes BEFORE INSERT OR UPDATE OF messages, tools, tool_choice, output
  ON alignment_rows FOR EACH ROW EXECUTE FUNCTION hone_alignment_row_bytes();--> statement-breakpoint
CREATE OR REPLACE FUNCTION hone_evaluation_result_bytes() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  NEW.bytes := coalesce(octet_length(NEW.output::text), 0) + octet_length(NEW.verdicts::text) + coalesce(octet_length(NEW.error), 0);
  RETURN NEW;
END
$fn$;--> statement-breakpoint
CREATE TRIGGER evaluation_results_bytes BEFORE INSERT OR UPDATE OF output, verdicts, error
  ON evaluation_results FOR EACH ROW EXECUTE FUNCTION hone_evaluation_result_bytes();
