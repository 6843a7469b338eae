import client from "prom-client";
import { sql } from "drizzle-orm";
import type { Database } from "./db/client";
import type { LogWriter } from "./domain/logs";
import { resultRows } from "./domain/logs/internal";

// Prometheus metrics (GET /metrics), one registry per app (tests run several in a process).
// Counters and histograms move on the hot path with a label lookup; the log backlog, job queue
// and pool are read when scraped.

const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

export type Metrics = {
  registry: client.Registry;
  http(route: string, method: string, status: number, seconds: number): void;
  upstream(provider: string, seconds: number, status: number | null): void;
  cacheLookup(result: "hit" | "miss"): void;
  /** The exposition text, with the scrape-time figures read first (a slow database never fails the scrape). */
  render(): Promise<string>;
};

export function createMetrics(sources: { database: Database; logWriter: () => LogWriter; dbPoolSize: number }): Metrics {
  const registry = new client.Registry();
  const reg = [registry];
  // The process's own figures (prom-client's default set reports NaN event-loop lag under Bun).
  const rss = new client.Gauge({ name: "hone_process_resident_memory_bytes", help: "Resident memory of this process", registers: reg });
  const heap = new client.Gauge({ name: "hone_process_heap_used_bytes", help: "JavaScript heap in use", registers: reg });
  const startTime = new client.Gauge({ name: "hone_process_start_time_seconds", help: "When this process started (Unix time)", registers: reg });
  startTime.set(Math.round(Date.now() / 1000 - process.uptime()));
  const requests = new client.Counter({
    name: "hone_http_requests_total",
    help: "HTTP requests by route pattern, method and status",
    labelNames: ["route", "method", "status"],
    registers: reg,
  });
  const duration = new client.Histogram({
    name: "hone_http_request_duration_seconds",
    help: "Time to the response's headers, by route pattern",
    labelNames: ["route", "method"],
    buckets: SECONDS,
    registers: reg,
  });
  const upstream = new client.Histogram({
    name: "hone_upstream_duration_seconds",
    help: "Gateway calls to a provider, start to last byte, by provider",
    labelNames: ["provider"],
    buckets: SECONDS,
    registers: reg,
  });
  const upstreamErrors = new client.Counter({
    name: "hone_upstream_errors_total",
    help: "Gateway calls that ended without a 2xx, by provider",
    labelNames: ["provider"],
    registers: reg,
  });
  const cache = new client.Counter({
    name: "hone_cache_lookups_total",
    help: "Gateway calls that asked for the cache, by result (hit or miss)",
    labelNames: ["result"],
    registers: reg,
  });
  const queueDepth = new client.Gauge({ name: "hone_log_queue_depth", help: "Call logs queued and not stored yet", registers: reg });
  const queueAge = new client.Gauge({
    name: "hone_log_queue_oldest_age_seconds",
    help: "How long the oldest queued call log has waited (0: none)",
    registers: reg,
  });
  const written = new client.Counter({ name: "hone_logs_written_total", help: "Call logs stored by this process's writer", registers: reg });
  const dropped = new client.Counter({
    name: "hone_logs_dropped_total",
    help: "Call logs given up on (database rejected them, stayed unreachable, or the queue overflowed)",
    registers: reg,
  });
  const jobs = new client.Gauge({
    name: "hone_jobs",
    help: "Background jobs (evaluations, fine-tunes, dataset tasks, alignment runs) by status",
    labelNames: ["status"],
    registers: reg,
  });
  const pool = new client.Gauge({ name: "hone_db_pool_max", help: "Database connections this process may open", labelNames: ["driver"], registers: reg });
  const scrapeError = new client.Gauge({
    name: "hone_scrape_error",
    help: "1 when a figure read at scrape time could not be read (it is left out)",
    registers: reg,
  });
  pool.set({ driver: sources.database.kind }, sources.database.kind === "pglite" ? 1 : sources.dbPoolSize);

  const setCounter = (c: client.Counter, n: number) => {
    c.reset();
    c.inc(n);
  };
  return {
    registry,
    http(route, method, status, seconds) {
      requests.inc({ route, method, status: String(status) });
      duration.observe({ route, method }, seconds);
    },
    cacheLookup(result) {
      cache.inc({ result });
    },
    upstream(provider, seconds, status) {
      upstream.observe({ provider }, seconds);
      if (status === null || status < 200 || status >= 300) upstreamErrors.inc({ provider });
    },
    async render() {
      const mem = process.memoryUsage();
      rss.set(mem.rss);
      heap.set(mem.heapUsed);
      const s = sources.logWriter().stats();
      queueDepth.set(s.depth);
      queueAge.set((s.oldestAgeMs ?? 0) / 1000);
      setCounter(written, s.written);
      setCounter(dropped, s.dropped);
      let failed = 0;
      try {
        const rows = await Promise.race([
          sources.database.db.execute(sql`select status, count(*)::int as n from jobs where status in ('queued', 'running') group by status`),
          new Promise<never>((_, reject) => setTimeout(() => reject(new Error("jobs query took over 1 s")), 1_000)),
        ]);
        jobs.reset();
        jobs.set({ status: "queued" }, 0);
        jobs.set({ status: "running" }, 0);
        for (const r of resultRows<{ status: string; n: number }>(rows)) jobs.set({ status: r.status }, Number(r.n));
      } catch {
        failed = 1;
        jobs.reset();
      }
      scrapeError.set(failed);
      return registry.metrics();
    },
  };
}
