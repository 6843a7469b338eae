// Seeds a project with N real-shaped logs straight in SQL (INSERT ... SELECT generate_series, no
// round trip per row), for the console benchmarks: 30 days, 20 models (skewed), 500 prompt_id
// values (skewed), 10,000 users, ~3% 4xx and ~2% 5xx, request/response bodies of about 1-2 KB of
// text (1% of them mentioning a refund), and the previews the log table shows.
import type postgres from "postgres";
import { fmt } from "./lib";

export async function seedLogs(sql: postgres.Sql, projectId: string, N: number): Promise<{ start: number; now: number }> {
  const now = Date.now();
  const span = 30 * 86_400_000;
  const start = now - span;
  const CHUNK = 100_000;
  const seedStarted = performance.now();
  for (let lo = 1; lo <= N; lo += CHUNK) {
    const hi = Math.min(N, lo + CHUNK - 1);
    // Per row g: a time spread evenly over 30 days (with jitter), skewed model and prompt_id; the
    // texts of its messages; then the log (with its previews, cut as previews.ts cuts them) and
    // its body (with its search text, the answer first) in one statement.
    await sql.unsafe(
      `with s as (
        select g, ($3::bigint + (g::float8 / $4 * $5)::bigint + (random() * 1000)::bigint) as ms,
          floor(power(random(), 2) * 20)::int as m, floor(power(random(), 3) * 500)::int as p,
          floor(random() * 10000)::int as u, random() as r
        from generate_series($1::int, $2::int) g
      ), t as (
        select *, 'log_' || lpad(to_hex(ms), 12, '0') || lpad(to_hex(g), 20, '0') as id,
          case when m < 12 then 'openai' when m < 18 then 'anthropic' else 'gemini' end as provider,
          case when m < 12 then 'openai' when m < 18 then 'anthropic' else 'gemini' end || ':model-' || m as model,
          'You are the support assistant of an online shop. Answer politely, in two or three sentences, and never invent order details you were not given.' as sys,
          'Hello, this is user-' || u || '. About order #' || g || ': '
            || case when g % 100 = 0 then 'I would like a refund, the parcel arrived damaged. ' else 'where is it? It should have arrived by now. ' end
            || repeat('The tracking page says ' || md5(g::text) || ' and nothing else. ', 8 + g % 16) as usr,
          'Thank you for reaching out. Your order is on its way; the carrier reports ' || md5('c' || g) || '. '
            || repeat('We will keep you posted. ', 4 + g % 12) as ans
        from s
      ), logs as (
        insert into request_logs (id, project_id, source, provider, model, completion_id, status_code, error_message,
          requested_at, received_at, duration_ms, input_tokens, output_tokens, cost_usd, cache_hit, metadata, created_at,
          input_preview, output_preview)
        select id, $6, case when r < 0.8 then 'gateway' else 'report' end,
          provider, model, 'chatcmpl-' || g,
          case when r < 0.03 then 400 + (g % 30) when r < 0.05 then 500 + (g % 4) else 200 end,
          case when r < 0.05 then 'upstream error' end,
          to_timestamp(ms / 1000.0), to_timestamp((ms + 300 + (r * 3000)::int) / 1000.0), 300 + (r * 3000)::int,
          200 + (g % 1800), 20 + (g % 400), (200 + (g % 1800)) * 0.00000015 + (20 + (g % 400)) * 0.0000006,
          r > 0.97, jsonb_build_object('prompt_id', 'prompt-' || p, 'user_id', 'user-' || u, 'env', case when r < 0.9 then 'prod' else 'dev' end),
          to_timestamp(ms / 1000.0), hone_fold_preview(usr), hone_fold_preview(ans)
        from t
      )
      insert into request_log_bodies (log_id, req_payload, resp_payload, search_text)
      select id,
        jsonb_build_object('model', model, 'messages', jsonb_build_array(
          jsonb_build_object('role', 'system', 'content', sys), jsonb_build_object('role', 'user', 'content', usr))),
        jsonb_build_object('id', 'chatcmpl-' || g, 'object', 'chat.completion', 'model', model, 'choices', jsonb_build_array(jsonb_build_object(
          'index', 0, 'finish_reason', 'stop', 'message', jsonb_build_object('role', 'assistant', 'content', ans))),
          'usage', jsonb_build_object('prompt_tokens', 200 + (g % 1800), 'completion_tokens', 20 + (g % 400))),
        lower(left(ans || E'\\n' || usr || E'\\n' || sys, 6000))
      from t`,
      [lo, hi, start, N, span, projectId],
    );
    process.stdout.write(`\rseeded ${hi.toLocaleString()} / ${N.toLocaleString()} logs`);
  }
  await sql.unsafe("analyze request_logs");
  await sql.unsafe("analyze request_log_bodies");
  const [size] = await sql.unsafe(
    `select (select pg_size_pretty(sum(pg_total_relation_size(relid))) from pg_partition_tree('request_logs')) as logs,
      (select pg_size_pretty(sum(pg_total_relation_size(relid))) from pg_partition_tree('request_log_bodies')) as bodies`,
  );
  console.log(
    `\nseeded ${N.toLocaleString()} logs in ${fmt((performance.now() - seedStarted) / 1000, 1)} s (request_logs ${size!.logs}, bodies ${size!.bodies})`,
  );
  return { start, now };
}
