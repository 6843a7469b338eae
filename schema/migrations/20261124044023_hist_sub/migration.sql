-- Latency histograms ({bin: calls}) minus another: what deleting logs takes out of a usage rollup.
CREATE OR REPLACE FUNCTION hone_hist_sub(a jsonb, b jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
  SELECT coalesce(jsonb_object_agg(key, n), '{}'::jsonb) FROM (
    SELECT key, value::int - coalesce((b ->> key)::int, 0) AS n FROM jsonb_each_text(a)
  ) s WHERE n > 0
$fn$;
