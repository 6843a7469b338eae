-- Logs partitioned by time: request_logs and request_log_bodies become tables partitioned by range
-- of their time-ordered id (one partition per UTC day, created ahead by Hone:
-- src/domain/logs/partitions.ts), so retention drops whole days instead of deleting rows.
-- Nothing is copied: the existing tables become the first partition ("legacy", every id below the
-- start of tomorrow, or past the newest existing id; on an empty database, no id at all), attached
-- as they are; retention drops it whole once all of it is past the limit. A default partition
-- catches ids outside every range (clock jumps), so no insert ever fails for want of a partition.
-- The bodies get search_text (the messages' text: src/domain/logs/search-text.ts writes it for new
-- logs, hone_log_search_text below for the existing ones), indexed with pg_trgm where available.

CREATE OR REPLACE FUNCTION hone_log_search_text(req jsonb, resp jsonb) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
  SELECT lower(left(concat_ws(E'\n',
    (SELECT string_agg(x #>> '{}', E'\n') FROM jsonb_path_query(resp, 'lax $.choices[*].message.content ? (@.type() == "string")') x),
    (SELECT string_agg(x #>> '{}', E'\n') FROM jsonb_path_query(resp, 'lax $.choices[*].message.content[*].text') x),
    (SELECT string_agg(x #>> '{}', E'\n') FROM jsonb_path_query(resp, 'lax $.choices[*].message.tool_calls[*].function.arguments') x),
    (SELECT string_agg(x #>> '{}', E'\n') FROM jsonb_path_query(resp, 'lax $.choices[*].message.refusal ? (@.type() == "string")') x),
    (SELECT string_agg(t, E'\n' ORDER BY ord DESC) FROM (
      SELECT m.ord, concat_ws(E'\n',
        (SELECT string_agg(x #>> '{}', E'\n') FROM jsonb_path_query(m.msg, 'lax $.content ? (@.type() == "string")') x),
        (SELECT string_agg(x #>> '{}', E'\n') FROM jsonb_path_query(m.msg, 'lax $.content[*].text') x),
        (SELECT string_agg(x #>> '{}', E'\n') FROM jsonb_path_query(m.msg, 'lax $.tool_calls[*].function.arguments') x)) AS t
      FROM jsonb_array_elements(CASE WHEN jsonb_typeof(req -> 'messages') = 'array' THEN req -> 'messages' ELSE '[]'::jsonb END)
        WITH ORDINALITY AS m(msg, ord)) s)
  ), 6000))
$fn$;
--> statement-breakpoint
DO $$
BEGIN
  CREATE EXTENSION IF NOT EXISTS pg_trgm;
EXCEPTION WHEN OTHERS THEN
  RAISE NOTICE 'pg_trgm is not available (%): text search over logs works without an index', SQLERRM;
END $$;
--> statement-breakpoint
ALTER TABLE "request_logs" RENAME TO "request_logs_legacy";--> statement-breakpoint
ALTER TABLE "request_logs_legacy" RENAME CONSTRAINT "request_logs_pkey" TO "request_logs_legacy_pkey";--> statement-breakpoint
ALTER INDEX "request_logs_project_id_id_index" RENAME TO "request_logs_legacy_project_id_id_index";--> statement-breakpoint
ALTER INDEX "request_logs_project_id_completion_id_index" RENAME TO "request_logs_legacy_project_id_completion_id_index";--> statement-breakpoint
ALTER INDEX "request_logs_project_id_model_id_index" RENAME TO "request_logs_legacy_project_id_model_id_index";--> statement-breakpoint
ALTER INDEX "request_logs_metadata_gin" RENAME TO "request_logs_legacy_metadata_gin";--> statement-breakpoint
ALTER TABLE "request_log_bodies" RENAME TO "request_log_bodies_legacy";--> statement-breakpoint
ALTER TABLE "request_log_bodies_legacy" RENAME CONSTRAINT "request_log_bodies_pkey" TO "request_log_bodies_legacy_pkey";--> statement-breakpoint
ALTER TABLE "request_log_bodies_legacy" ADD COLUMN "search_text" text;--> statement-breakpoint
UPDATE "request_log_bodies_legacy" SET "search_text" = hone_log_search_text("req_payload", "resp_payload");--> statement-breakpoint
CREATE TABLE "request_logs" (LIKE "request_logs_legacy" INCLUDING DEFAULTS) PARTITION BY RANGE ("id");--> statement-breakpoint
ALTER TABLE "request_logs" ADD CONSTRAINT "request_logs_pkey" PRIMARY KEY ("id");--> statement-breakpoint
CREATE INDEX "request_logs_project_id_id_index" ON "request_logs" ("project_id","id");--> statement-breakpoint
CREATE INDEX "request_logs_project_id_completion_id_index" ON "request_logs" ("project_id","completion_id");--> statement-breakpoint
CREATE INDEX "request_logs_project_id_model_id_index" ON "request_logs" ("project_id","model","id");--> statement-breakpoint
CREATE INDEX "request_logs_metadata_gin" ON "request_logs" USING gin ("metadata" jsonb_path_ops);--> statement-breakpoint
CREATE TABLE "request_log_bodies" (
  "log_id" text NOT NULL,
  "req_payload" jsonb,
  "resp_payload" jsonb,
  "req_payload_original" jsonb,
  "resp_payload_original" jsonb,
  "search_text" text
) PARTITION BY RANGE ("log_id");--> statement-breakpoint
ALTER TABLE "request_log_bodies" ADD CONSTRAINT "request_log_bodies_pkey" PRIMARY KEY ("log_id");--> statement-breakpoint
DO $$
DECLARE
  newest text := (SELECT max(id) FROM request_logs_legacy);
  tomorrow bigint := (extract(epoch FROM date_trunc('day', now() AT TIME ZONE 'UTC') + interval '1 day') * 1000)::bigint;
  newest_ms bigint;
  bound text;
BEGIN
  bound := 'log_' || lpad(to_hex(tomorrow), 12, '0');
  IF newest IS NULL THEN
    -- Nothing to keep: the first partition is empty and stays so; Hone creates the days.
    bound := 'log_';
  ELSIF newest >= bound THEN
    -- A log stamped later than tomorrow (a clock that ran ahead): the first partition takes it too.
    newest_ms := CASE WHEN newest ~ '^log_[0-9a-f]{12}' THEN ('x' || lpad(substr(newest, 5, 12), 16, '0'))::bit(64)::bigint ELSE NULL END;
    bound := CASE WHEN newest_ms IS NULL THEN newest || 'z'
      ELSE 'log_' || lpad(to_hex((newest_ms / 86400000 + 1) * 86400000), 12, '0') END;
  END IF;
  EXECUTE format('ALTER TABLE request_logs ATTACH PARTITION request_logs_legacy FOR VALUES FROM (MINVALUE) TO (%L)', bound);
  EXECUTE format('ALTER TABLE request_log_bodies ATTACH PARTITION request_log_bodies_legacy FOR VALUES FROM (MINVALUE) TO (%L)', bound);
END $$;
--> statement-breakpoint
CREATE TABLE "request_logs_default" PARTITION OF "request_logs" DEFAULT;--> statement-breakpoint
CREATE TABLE "request_log_bodies_default" PARTITION OF "request_log_bodies" DEFAULT;--> statement-breakpoint
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm') THEN
    EXECUTE 'CREATE INDEX request_log_bodies_search_trgm ON request_log_bodies USING gin (search_text gin_trgm_ops)';
  END IF;
END $$;
