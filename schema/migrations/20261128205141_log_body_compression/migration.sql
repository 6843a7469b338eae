-- Log bodies compressed whole inside their rows, where the server has lz4 (PGlite has not:
-- nothing changes there). Postgres compresses a row's values only once the row passes ~2 KB, and
-- by default then only until it fits under 2 KB. With lz4 and storage MAIN each body value is
-- compressed and kept in the row (out of line only when the row would not fit a page even so);
-- a toast_tuple_target of 128 (a per-partition setting: set below on the partitions that exist,
-- and by src/domain/logs/store/partitions.ts on those it creates) keeps compressing past 2 KB. The
-- key is PLAIN: as EXTENDED it would be the first value moved out of line. Rows already stored
-- stay as they are until rewritten.
DO $$
DECLARE p record;
BEGIN
  BEGIN
    ALTER TABLE request_log_bodies
      ALTER COLUMN req_payload SET COMPRESSION lz4,
      ALTER COLUMN resp_payload SET COMPRESSION lz4,
      ALTER COLUMN req_payload_original SET COMPRESSION lz4,
      ALTER COLUMN resp_payload_original SET COMPRESSION lz4,
      ALTER COLUMN search_text SET COMPRESSION lz4;
  EXCEPTION WHEN feature_not_supported OR invalid_parameter_value THEN
    RETURN;
  END;
  ALTER TABLE request_log_bodies
    ALTER COLUMN req_payload SET STORAGE MAIN,
    ALTER COLUMN resp_payload SET STORAGE MAIN,
    ALTER COLUMN req_payload_original SET STORAGE MAIN,
    ALTER COLUMN resp_payload_original SET STORAGE MAIN,
    ALTER COLUMN search_text SET STORAGE MAIN,
    -- A key never leaves the row: as EXTENDED it would be the first thing moved out of line.
    ALTER COLUMN log_id SET STORAGE PLAIN;
  FOR p IN SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
    WHERE i.inhparent = 'request_log_bodies'::regclass LOOP
    EXECUTE format('ALTER TABLE %I SET (toast_tuple_target = 128)', p.relname);
  END LOOP;
END $$;
