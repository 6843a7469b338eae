import client from "prom-client";
import { sql } from "drizzle-orm";
import type { Database } from "../db/client";
import type { LogWriter, LogWriterStats } from "./logs";
import { resultRows } from "./logs";

// Prometheus metrics (GET /metrics), one registry per app (tests run several in a process).
// prom-client holds the registry and writes the exposition text (escaping label values and help
// text per the format). The series that move on every request keep their numbers in cells of
// their own, found with Map lookups by label value: prom-client's inc/observe build a label object
// and a hash string per call (and observe a closure), which the hot path does not pay. The log
// backlog, job queue, pool and process figures are read when scraped.

const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];
/** Methods that get their own label value; any other (a client may send any token) is "OTHER". */
const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);
/** The status a gateway call gets when its client hung up: not the provider's failure. */
const CLIENT_CLOSED = 499;
/** Distinct routing targets labelled by name; any further ones are "other". */
const MAX_TARGET_LABELS = 200;
/** How long a scrape waits for the job counts before leaving them out. */
const DB_DEADLINE_MS = 1_000;

export type Metrics = {
  registry: client.Registry;
  /** `route` is a pattern (bounded set), never a raw path. */
  http(route: string, method: string, status: number, seconds: number): void;
  /** A gateway call that reached a provider; `status` null: no answer. */
  upstream(provider: string, seconds: number, status: number | null): void;
  cacheLookup(result: "hit" | "miss"): void;
  /** An answered call logged with no plain cost: no token counts (no_usage) or no price for its model (no_price). */
  unpriced(reason: "no_usage" | "no_price"): void;
  /** An analysis by the external masking analyzer, and what came of it. */
  maskingAnalyzer(outcome: "ok" | "unavailable" | "timeout" | "busy" | "partial"): void;
  /** A gateway call checked against limits: admitted, or refused by a rate limit or a spent budget. */
  limitCheck(outcome: "admitted" | "rate_limited" | "budget_exceeded"): void;
  /**
   * A routed call's attempt at a target (a model string) and what came of it: answered, retried,
   * fell-back; or its circuit opening or closing. At most MAX_TARGET_LABELS targets get their own
   * label value (model strings are the tenants' to choose); the rest count as "other".
   */
  routing(target: string, event: "answered" | "retried" | "fell-back" | "circuit-opened" | "circuit-closed"): void;
  /** The exposition text, with the scrape-time figures read first (a slow database never fails the scrape). */
  render(): Promise<string>;
};

export type MetricsSources = {
  database: Database;
  logWriter: () => LogWriter;
  dbPoolSize: number;
  /** Tests shorten it. */
  dbDeadlineMs?: number;
  /** The routing targets whose circuit is open now (on this process), read when scraped. */
  openCircuits?: () => string[];
  /** Online-evaluation samples skipped because 64 judgements were in flight (on this process). */
  samplesSkipped?: () => number;
};

type Labels = Record<string, string>;
type Key = string | number;
type Sample = { labels: Labels; value: number; metricName?: string };
type CounterCell = { labels: Labels; value: number };
type HistogramCell = { labels: Labels; counts: Float64Array; sum: number; count: number };

/** The series of one family by their label values (up to three), each created once. */
class SeriesTable<C> {
  readonly cells: C[] = [];
  private readonly root = new Map<Key, unknown>();
  constructor(
    private readonly labelNames: readonly string[],
    private readonly create: (labels: Labels) => C,
  ) {}

  at(a: Key, b: Key = "", c: Key = ""): C {
    const depth = this.labelNames.length;
    let node = this.root;
    if (depth > 1) node = this.child(node, a);
    if (depth > 2) node = this.child(node, b);
    const last = depth === 1 ? a : depth === 2 ? b : c;
    let cell = node.get(last) as C | undefined;
    if (cell === undefined) {
      const values = [a, b, c];
      const labels: Labels = {};
      this.labelNames.forEach((name, i) => {
        labels[name] = String(values[i]);
      });
      cell = this.create(labels);
      node.set(last, cell);
      this.cells.push(cell);
    }
    return cell;
  }

  private child(node: Map<Key, unknown>, key: Key): Map<Key, unknown> {
    let next = node.get(key) as Map<Key, unknown> | undefined;
    if (!next) node.set(key, (next = new Map()));
    return next;
  }
}

/**
 * A family whose samples are made at scrape time, in the shape prom-client's metrics hand its
 * registry (`MetricObjectWithValues`, what `metric.get()` resolves to), so the registry formats it.
 */
function register(registry: client.Registry, name: string, help: string, type: "counter" | "histogram" | "gauge", samples: () => Sample[]): void {
  const get = async () => ({ name, help, type, aggregator: "sum", values: samples() });
  registry.registerMetric({ name, help, type, aggregator: "sum", get, reset() {} } as unknown as client.Metric);
}

function counter(registry: client.Registry, name: string, help: string, labelNames: readonly string[]): SeriesTable<CounterCell> {
  const table = new SeriesTable<CounterCell>(labelNames, (labels) => ({ labels, value: 0 }));
  register(registry, name, help, "counter", () => table.cells.map((c) => ({ labels: c.labels, value: c.value })));
  return table;
}

function histogram(registry: client.Registry, name: string, help: string, labelNames: readonly string[]): SeriesTable<HistogramCell> {
  const table = new SeriesTable<HistogramCell>(labelNames, (labels) => ({ labels, counts: new Float64Array(SECONDS.length), sum: 0, count: 0 }));
  register(registry, name, help, "histogram", () => {
    const out: Sample[] = [];
    for (const c of table.cells) {
      let cumulative = 0;
      SECONDS.forEach((le, i) => {
        cumulative += c.counts[i]!;
        out.push({ metricName: `${name}_bucket`, labels: { ...c.labels, le: String(le) }, value: cumulative });
      });
      out.push({ metricName: `${name}_bucket`, labels: { ...c.labels, le: "+Inf" }, value: c.count });
      out.push({ metricName: `${name}_sum`, labels: c.labels, value: c.sum });
      out.push({ metricName: `${name}_count`, labels: c.labels, value: c.count });
    }
    return out;
  });
  return table;
}

function observe(cell: HistogramCell, seconds: number): void {
  let i = 0;
  while (i < SECONDS.length && seconds > SECONDS[i]!) i++;
  if (i < SECONDS.length) cell.counts[i]!++;
  cell.sum += seconds;
  cell.count++;
}

export function createMetrics(sources: MetricsSources): Metrics {
  const registry = new client.Registry();
  const reg = [registry];
  const deadlineMs = sources.dbDeadlineMs ?? DB_DEADLINE_MS;

  const requests = counter(registry, "hone_http_requests_total", "HTTP requests by route pattern, method and status", ["route", "method", "status"]);
  const duration = histogram(registry, "hone_http_request_duration_seconds", "Time to the response's headers, by route pattern and method", [
    "route",
    "method",
  ]);
  const upstream = histogram(registry, "hone_upstream_duration_seconds", "Gateway calls to a provider, start to last byte, by provider", ["provider"]);
  const upstreamErrors = counter(registry, "hone_upstream_errors_total", "Gateway calls to a provider that ended without a 2xx, by provider", ["provider"]);
  const cache = counter(registry, "hone_cache_lookups_total", "Gateway calls that read the cache, by result (hit or miss)", ["result"]);
  const attempts = counter(
    registry,
    "hone_routing_attempts_total",
    "Attempts of routed calls (fallbacks, routes) by target and outcome (answered, retried, fell-back)",
    ["target", "outcome"],
  );
  const circuits = counter(registry, "hone_circuit_transitions_total", "Routing targets' circuits opening and closing, by target and state (open, closed)", [
    "target",
    "state",
  ]);
  const circuitsOpen = new client.Gauge({
    name: "hone_circuits_open",
    help: "Routing targets whose circuit is open now on this process (one per project that has it open), by target",
    labelNames: ["target"],
    registers: reg,
  });
  const targets = new Set<string>();
  const targetLabel = (t: string) => {
    if (targets.has(t)) return t;
    if (targets.size >= MAX_TARGET_LABELS) return "other";
    targets.add(t);
    return t;
  };
  // Both exist from the start, so a rate over them is defined before the first lookup.
  const cacheHit = cache.at("hit");
  const cacheMiss = cache.at("miss");
  const unpricedLogs = counter(
    registry,
    "hone_logs_unpriced_total",
    "Answered calls logged with no plain cost, by reason: no_usage (no token counts) or no_price (no price for the model)",
    ["reason"],
  );
  const unpricedCells = { no_usage: unpricedLogs.at("no_usage"), no_price: unpricedLogs.at("no_price") };
  const analyzerRuns = counter(
    registry,
    "hone_masking_analyzer_total",
    "Analyses by the external masking analyzer, by outcome: ok, unavailable, timeout, busy (too many in flight) or partial (text past the cap)",
    ["outcome"],
  );
  const limitChecks = counter(
    registry,
    "hone_limit_checks_total",
    "Gateway calls checked against limits, by outcome: admitted, rate_limited or budget_exceeded",
    ["outcome"],
  );
  const limitCells = { admitted: limitChecks.at("admitted"), rate_limited: limitChecks.at("rate_limited"), budget_exceeded: limitChecks.at("budget_exceeded") };

  // Read from the log writer at scrape time.
  let log: LogWriterStats = { depth: 0, oldestAgeMs: null, written: 0, dropped: 0 };
  register(registry, "hone_logs_written_total", "Call logs stored by this process's log writer", "counter", () => [{ labels: {}, value: log.written }]);
  register(
    registry,
    "hone_logs_dropped_total",
    "Call logs given up on (the database rejected them, stayed unreachable, or the queue overflowed)",
    "counter",
    () => [{ labels: {}, value: log.dropped }],
  );
  // The durable spool (absent without one).
  register(registry, "hone_spool_bytes", "Bytes of call logs held in this process's spool", "gauge", () =>
    log.spool ? [{ labels: {}, value: log.spool.bytes }] : [],
  );
  register(registry, "hone_spool_segments_awaiting_replay", "Spool segments waiting for the database to store them again", "gauge", () =>
    log.spool ? [{ labels: {}, value: log.spool.awaitingReplay }] : [],
  );
  register(registry, "hone_spool_replayed_total", "Call logs stored from the spool after the database came back (or a restart)", "counter", () =>
    log.spool ? [{ labels: {}, value: log.spool.replayed }] : [],
  );
  register(
    registry,
    "hone_online_samples_skipped_total",
    "Answers sampled for an online evaluation but not judged: 64 judgements were in flight",
    "counter",
    () => (sources.samplesSkipped ? [{ labels: {}, value: sources.samplesSkipped() }] : []),
  );
  register(registry, "hone_logs_unspooled_total", "Call logs not spooled (past HONE_SPOOL_MAX_BYTES, or the disk failed)", "counter", () =>
    log.spool ? [{ labels: {}, value: log.spool.unspooled }] : [],
  );
  const queueDepth = new client.Gauge({ name: "hone_log_queue_depth", help: "Call logs queued and not stored yet", registers: reg });
  const queueAge = new client.Gauge({
    name: "hone_log_queue_oldest_age_seconds",
    help: "How long the oldest queued call log has waited (0: none waiting)",
    registers: reg,
  });
  const jobs = new client.Gauge({
    name: "hone_jobs",
    help: "Background jobs (evaluations, fine-tunes, dataset tasks, alignment runs) queued or running, by status",
    labelNames: ["status"],
    registers: reg,
  });
  const scrapeError = new client.Gauge({
    name: "hone_scrape_error",
    help: "1 when a figure read from the database at scrape time could not be read in time (it is left out)",
    registers: reg,
  });
  const pool = new client.Gauge({
    name: "hone_db_pool_max",
    help: "Database connections this process's request pool may open (PGlite: one, in-process)",
    labelNames: ["driver"],
    registers: reg,
  });
  pool.set({ driver: sources.database.kind }, sources.database.kind === "pglite" ? 1 : sources.dbPoolSize);

  // The process's own figures (prom-client's default collectors report NaN event-loop lag under Bun).
  const rss = new client.Gauge({ name: "hone_process_resident_memory_bytes", help: "Resident memory of this process", registers: reg });
  const heap = new client.Gauge({ name: "hone_process_heap_used_bytes", help: "JavaScript heap in use", registers: reg });
  const uptime = new client.Gauge({ name: "hone_process_uptime_seconds", help: "How long this process has run", registers: reg });
  const startTime = new client.Gauge({ name: "hone_process_start_time_seconds", help: "When this process started (Unix time)", registers: reg });
  startTime.set(Math.round(Date.now() / 1000 - process.uptime()));
  let cpu = 0;
  register(registry, "hone_process_cpu_seconds_total", "CPU time this process has used (user and system)", "counter", () => [{ labels: {}, value: cpu }]);

  // One read of the job counts at a time: scrapes arriving while it is slow wait on the same one
  // instead of each taking another connection.
  let jobsRead: Promise<{ status: string; n: number }[]> | null = null;
  const readJobs = () => {
    jobsRead ??= countJobs(sources.database, deadlineMs).finally(() => {
      jobsRead = null;
    });
    return jobsRead;
  };

  return {
    registry,
    http(route, method, status, seconds) {
      const m = METHODS.has(method) ? method : "OTHER";
      requests.at(route, m, status).value++;
      observe(duration.at(route, m), seconds);
    },
    cacheLookup(result) {
      (result === "hit" ? cacheHit : cacheMiss).value++;
    },
    unpriced(reason) {
      unpricedCells[reason].value++;
    },
    maskingAnalyzer(outcome) {
      analyzerRuns.at(outcome).value++;
    },
    limitCheck(outcome) {
      limitCells[outcome].value++;
    },
    routing(target, event) {
      const t = targetLabel(target);
      if (event === "circuit-opened" || event === "circuit-closed") circuits.at(t, event === "circuit-opened" ? "open" : "closed").value++;
      else attempts.at(t, event).value++;
    },
    upstream(provider, seconds, status) {
      observe(upstream.at(provider), seconds);
      if (status === null || ((status < 200 || status >= 300) && status !== CLIENT_CLOSED)) upstreamErrors.at(provider).value++;
    },
    async render() {
      const mem = process.memoryUsage();
      rss.set(mem.rss);
      heap.set(mem.heapUsed);
      uptime.set(Math.round(process.uptime()));
      const usage = process.cpuUsage();
      cpu = (usage.user + usage.system) / 1e6;
      log = sources.logWriter().stats();
      queueDepth.set(log.depth);
      circuitsOpen.reset();
      const open = new Map<string, number>();
      for (const target of sources.openCircuits?.() ?? []) {
        const t = targetLabel(target);
        open.set(t, (open.get(t) ?? 0) + 1);
      }
      for (const [target, n] of open) circuitsOpen.set({ target }, n);
      queueAge.set((log.oldestAgeMs ?? 0) / 1000);

      const counts = await withDeadline(readJobs(), deadlineMs).catch(() => null);
      jobs.reset();
      if (counts) {
        jobs.set({ status: "queued" }, 0);
        jobs.set({ status: "running" }, 0);
        for (const r of counts) jobs.set({ status: r.status }, Number(r.n));
      }
      scrapeError.set(counts ? 0 : 1);
      return registry.metrics();
    },
  };
}

/**
 * Queued and running jobs: an index-only count on jobs(status, run_at). On Postgres the statement
 * carries its own timeout, so a query past the scrape's deadline is cancelled by the server rather
 * than left holding a connection.
 */
async function countJobs(database: Database, deadlineMs: number): Promise<{ status: string; n: number }[]> {
  const query = sql`select status, count(*)::int as n from jobs where status in ('queued', 'running') group by status`;
  if (database.kind === "pglite") return resultRows(await database.db.execute(query));
  return database.db.transaction(async (tx) => {
    await tx.execute(sql.raw(`set local statement_timeout = ${Math.max(1, Math.round(deadlineMs))}`));
    return resultRows(await tx.execute(query));
  });
}

function withDeadline<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`took over ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
