CREATE TABLE "usage_stale_hours" (
	"project_id" text,
	"hour" timestamp with time zone,
	CONSTRAINT "usage_stale_hours_pkey" PRIMARY KEY("project_id","hour")
);
--> statement-breakpoint
ALTER TABLE "request_logs" ADD COLUMN "internal_kind" text;--> statement-breakpoint
ALTER TABLE "request_logs" ADD COLUMN "input_preview" text;--> statement-breakpoint
ALTER TABLE "request_logs" ADD COLUMN "output_preview" text;--> statement-breakpoint
ALTER TABLE "evaluations" ADD COLUMN "name" text;--> statement-breakpoint
-- Previews of the last user message and of the first answer, as src/domain/logs/previews.ts
-- writes them for new logs; computed here for the logs that exist.
CREATE OR REPLACE FUNCTION hone_text_of(content jsonb) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
  SELECT CASE jsonb_typeof(content)
    WHEN 'string' THEN content #>> '{}'
    WHEN 'array' THEN (SELECT string_agg(p ->> 'text', ' ') FROM jsonb_array_elements(content) p WHERE jsonb_typeof(p -> 'text') = 'string')
    ELSE NULL END
$fn$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION hone_fold_preview(t text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
  SELECT nullif(left(btrim(regexp_replace(left(t, 800), '\s+', ' ', 'g')), 200), '')
$fn$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION hone_log_input_preview(req jsonb) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
  SELECT hone_fold_preview((
    SELECT hone_text_of(m.msg -> 'content')
    FROM jsonb_array_elements(CASE WHEN jsonb_typeof(req -> 'messages') = 'array' THEN req -> 'messages' ELSE '[]'::jsonb END)
      WITH ORDINALITY AS m(msg, ord)
    WHERE jsonb_typeof(m.msg) = 'object' AND m.msg ->> 'role' = 'user' AND hone_text_of(m.msg -> 'content') IS NOT NULL
    ORDER BY m.ord DESC LIMIT 1))
$fn$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION hone_log_output_preview(resp jsonb) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
  SELECT CASE WHEN jsonb_typeof(m) <> 'object' OR m IS NULL THEN NULL ELSE hone_fold_preview(coalesce(
    nullif(hone_text_of(m -> 'content'), ''),
    (SELECT string_agg(coalesce(c -> 'function' ->> 'name', '') || '(' || CASE WHEN jsonb_typeof(c -> 'function' -> 'arguments') = 'string'
        THEN c -> 'function' ->> 'arguments' ELSE '' END || ')', ' ')
      FROM jsonb_array_elements(CASE WHEN jsonb_typeof(m -> 'tool_calls') = 'array' THEN m -> 'tool_calls' ELSE '[]'::jsonb END) c
      WHERE jsonb_typeof(c -> 'function') = 'object'),
    CASE WHEN jsonb_typeof(m -> 'refusal') = 'string' THEN m ->> 'refusal' END)) END
  FROM (SELECT CASE WHEN jsonb_typeof(resp -> 'choices') = 'array' THEN resp -> 'choices' -> 0 -> 'message' END AS m) x
$fn$;--> statement-breakpoint
UPDATE request_logs l SET input_preview = hone_log_input_preview(b.req_payload), output_preview = hone_log_output_preview(b.resp_payload)
  FROM request_log_bodies b WHERE b.log_id = l.id;--> statement-breakpoint
-- Hone's own calls were logged as gateway calls with a hone.* tag: they become internal, of a kind.
UPDATE request_logs SET source = 'internal', internal_kind = CASE
    WHEN jsonb_exists(metadata, 'hone.evaluation') THEN 'evaluation'
    WHEN jsonb_exists(metadata, 'hone.relabel') THEN 'relabel'
    WHEN metadata ->> 'hone.source' = 'playground' THEN 'playground'
    ELSE 'judge' END
  WHERE source = 'gateway'
    AND (jsonb_exists(metadata, 'hone.evaluation') OR jsonb_exists(metadata, 'hone.relabel') OR jsonb_exists(metadata, 'hone.criterion')
      OR metadata ->> 'hone.source' = 'playground');--> statement-breakpoint
-- One spelling per model: a bare name is openai:<name> (anthropic:<name> in Anthropic reports).
UPDATE request_logs SET model = CASE WHEN source = 'report-anthropic' THEN 'anthropic:' ELSE 'openai:' END || model
  WHERE model IS NOT NULL AND (position(':' IN model) = 0 OR model LIKE 'ft:%');--> statement-breakpoint
UPDATE request_logs SET model = 'hone:' || substr(model, 10) WHERE model LIKE 'openpipe:%';--> statement-breakpoint
-- A log is dated when its call was made: a log whose id holds another time (a report sent later, a
-- gateway log written when the call ended) gets an id of its requested time, keeping its random
-- part; its body and the dataset entries made from it follow.
CREATE TABLE hone_reid AS
  SELECT id AS old_id,
    'log_' || lpad(to_hex(floor(extract(epoch FROM requested_at) * 1000)::bigint), 12, '0') || substr(id, 17) AS new_id
  FROM request_logs
  WHERE requested_at IS NOT NULL AND requested_at >= '2000-01-01' AND requested_at <= now() + interval '5 minutes'
    AND abs(floor(extract(epoch FROM requested_at) * 1000)::bigint - ('x' || lpad(substr(id, 5, 12), 16, '0'))::bit(64)::bigint) > 1000;--> statement-breakpoint
UPDATE request_log_bodies b SET log_id = r.new_id FROM hone_reid r WHERE b.log_id = r.old_id;--> statement-breakpoint
UPDATE dataset_entries e SET source_log_id = r.new_id FROM hone_reid r WHERE e.source_log_id = r.old_id;--> statement-breakpoint
UPDATE request_logs l SET id = r.new_id FROM hone_reid r WHERE l.id = r.old_id;--> statement-breakpoint
DROP TABLE hone_reid;--> statement-breakpoint
-- The usage rollups are summed again from the logs (sources, models and hours changed above).
DELETE FROM usage_hourly;--> statement-breakpoint
DELETE FROM usage_hourly_tags;--> statement-breakpoint
DELETE FROM usage_daily;--> statement-breakpoint
DELETE FROM usage_daily_tags;--> statement-breakpoint
UPDATE usage_rollup_state SET closed_until = NULL;--> statement-breakpoint
UPDATE evaluations e SET name = left((SELECT string_agg(m, ', ') FROM jsonb_array_elements_text(e.models) m)
    || coalesce(' on ' || (SELECT d.name FROM datasets d WHERE d.id = e.dataset_id), ''), 200)
  WHERE name IS NULL;
