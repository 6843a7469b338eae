import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import type { Role } from "./key-scope";
import { type IpRange, parseIpRange } from "../lib/ip-address";
import { DEFAULT_PGLITE_TEMPLATE_DIR, splitList } from "./env-fields";
import { HARDENING_VARIABLES } from "./env-hardening";
import { ROUTING_VARIABLES } from "./env-routing";
import { SERVER_VARIABLES } from "./env-server";

// The only place that reads the environment. Everything else receives a Config.

/**
 * Every environment variable Hone reads. Each carries its documentation: a description, and where
 * the schema's own default does not say it (computed in loadConfig, or unset meaning something),
 * the default as prose (`docDefault`). docs/operations.md's table is printed from it
 * (`bun run docs:config`, src/print-config-docs.ts); a test fails on drift.
 */
export const EnvSchema = z.object({ ...SERVER_VARIABLES, ...ROUTING_VARIABLES, ...HARDENING_VARIABLES });

/** The name of an environment variable Hone reads. */
export type EnvVariable = keyof typeof EnvSchema.shape;

export type Config = {
  port: number;
  host: string;
  databaseUrl: string | undefined;
  dataDir: string;
  /**
   * Where migrated copies of a fresh embedded database are kept for the next fresh data directory
   * (src/db/pglite-template.ts; HONE_PGLITE_TEMPLATE_DIR, default node_modules/.cache/hone/pglite
   * in the project; null: "off").
   */
  pgliteTemplateDir: string | null;
  secretKey: string | undefined;
  bootstrapApiKey: string | undefined;
  adminToken: string | undefined;
  /** Bearer token GET /metrics requires when set; unset: /metrics is open on the listening address. */
  metricsToken: string | undefined;
  openaiBaseUrl: string;
  anthropicBaseUrl: string;
  geminiBaseUrl: string;
  togetherBaseUrl: string;
  fireworksBaseUrl: string;
  /** Where an open model's fine-tune goes when the OpenPipe SDK asks (provider `openpipe`). */
  openModelBackend: "trainer" | "together" | "fireworks";
  testingRoutes: boolean;
  modelPrefixes: string[];
  maxBodyBytes: number;
  /** Largest JSONL file accepted by POST /datasets/{id}/import (streamed, never held whole). */
  maxImportBytes: number;
  graphiql: boolean;
  logLevel: "debug" | "info" | "warn" | "error" | "silent";
  dbPoolSize: number;
  /** Longest a non-streamed upstream call may take end to end (body included); for a stream, the longest wait for headers and the longest silence between chunks. */
  upstreamTimeoutMs: number;
  /**
   * The retry policy and circuit breaker of calls with fallbacks (or a route): attempts per target
   * (the first included), the first backoff (doubled each retry, with jitter), the longest upstream
   * Retry-After honoured (longer: the next target instead); a target failing `circuitFailures`
   * times within `circuitWindowMs` is tried last for `circuitCooldownMs`, then probed.
   */
  routing: {
    attempts: number;
    backoffMs: number;
    retryAfterMaxMs: number;
    circuitFailures: number;
    circuitWindowMs: number;
    circuitCooldownMs: number;
    /** How long a process keeps a route as read: a change reaches every process within it (plus a read). */
    routeCacheMs: number;
    /** Routes kept in a file (JSON or YAML), applied at start and on SIGHUP. */
    routesFile: string | undefined;
  };
  /** How long call logs gather before one batched insert (larger batches cost the database less). */
  logFlushMs: number;
  /** Output tokens a call reserves against token and cost limits when it sets no max_tokens (or the like). */
  limitDefaultOutputTokens: number;
  /** Days before a key's expiry that the "key.expiring" alert is sent (0: never). */
  keyExpiryAlertDays: number;
  auditRetentionDays: number;
  /** Whether the console accepts an API key (or the admin token) at sign-in. */
  consoleKeySignIn: boolean;
  oidc: {
    issuer: string;
    clientId: string;
    clientSecret: string | undefined;
    allowedDomains: string[] | null;
    defaultRole: Role;
    organization: string | undefined;
  } | null;
  smtp: { url: string; from: string } | null;
  publicUrl: string | undefined;
  /**
   * The durable log spool (src/log-writer/spool.ts): its directory (HONE_SPOOL_DIR; default
   * <HONE_DATA_DIR>/spool; null: none, "off" or an in-memory data directory without one set), its
   * size cap, and the longest a spooled log waits for its fsync.
   */
  spool: { dir: string | null; maxBytes: number; syncMs: number };
  /** The day OpenAI stops taking new fine-tunes (YYYY-MM-DD, UTC). */
  openaiFineTuningEndsOn: string;
  /** Hone's own trainers: where uploaded weights are kept (HONE_ARTIFACTS_DIR), the largest file, the lease. */
  trainers: { artifactsDir: string; maxFileBytes: number; leaseSeconds: number };
  /** Logs older than this many days are deleted in the background; unset keeps them forever. */
  logRetentionDays: number | undefined;
  /** The metadata key whose values the usage rollups keep per hour (usage split by this tag is served from them). */
  usageTagKey: string;
  /** An hour is rolled up this long after it ends, so logs still in a writer's batch make it in. */
  usageCloseGraceMs: number;
  /** Longest a criterion judge may take before its result is an error. */
  judgeTimeoutMs: number;
  /** Judge calls run at once by an alignment run. */
  judgeConcurrency: number;
  /** Requests of one project running at once per lane (GraphQL, tRPC, exports, imports), and waiting beyond them. */
  projectConcurrency: number;
  projectQueue: number;
  /** GraphQL cost one project may spend per second on average, and at once. */
  projectCostPerSecond: number;
  projectCostBurst: number;
  /** (entry, model) pairs an evaluation or dataset task works on at once. */
  evalConcurrency: number;
  /** How often a training job is checked at its backend. */
  fineTunePollMs: number;
  /** How often an idle worker looks for due jobs. */
  jobPollMs: number;
  /** How often an idle monitor runner looks for calls offered to the monitors. */
  monitorPollMs: number;
  /** Run background jobs in this process (turn off for API-only processes). */
  worker: boolean;
  /** GraphQL operation limits: depth, aliases, lexer tokens and estimated cost of one operation. */
  graphqlMaxDepth: number;
  graphqlMaxAliases: number;
  graphqlMaxTokens: number;
  graphqlMaxCost: number;
  /** Largest page (`first`/`last`/`limit`) any list may return. */
  maxPageSize: number;
  /** Active API keys one project may hold. */
  maxActiveApiKeys: number;
  /** The least masking every project gets (domain/masking). */
  maskingMode: "off" | "mask_stored" | "mask_upstream" | "block";
  /** Where a phone number without a country code is read. */
  maskingPhoneRegion: import("libphonenumber-js").CountryCode;
  /** Hone's own spans out (lib/otel-export.ts); null: none. */
  otelExport: { url: string; headers: Record<string, string>; protocol: "http/protobuf" | "http/json"; serviceName: string; captureContent: boolean } | null;
  /** Bounds of one OTLP trace export (bytes as sent, spans). */
  otlpMaxBytes: number;
  otlpMaxSpans: number;
  /** OTLP exports stored at once by the ingest thread. */
  otlpConcurrency: number;
  /** The receiver's second path, <prefix>/v1/traces (the standard one under a prefix); null: only /api/v1/otel/v1/traces. */
  otlpAliasPath: string | null;
  /** An external analyzer for masking (Presidio's API); null: none. */
  maskingAnalyzer: { url: string; deadlineMs: number; entities: string[]; minScore: number; language: string } | null;
  /** Most calls one tRPC batch may carry. */
  trpcMaxBatch: number;
  /** Postgres statement_timeout of every session (0 = none). */
  dbStatementTimeoutMs: number;
  /** Custom providers may reach loopback and private networks (metadata addresses stay refused). */
  allowPrivateUpstreams: boolean;
  /** Hosts, host:port pairs or CIDRs custom providers may reach besides public addresses. */
  upstreamAllowlist: string[];
  /**
   * Reverse proxies (addresses and CIDRs) whose X-Forwarded-For is believed when they are the
   * peer; empty: the peer is the client and X-Forwarded-For is ignored.
   */
  trustedProxies: IpRange[];
  /** How long a claimed job is held before another worker may take it (renewed while it runs). */
  jobLeaseMs: number;
  /** Longest one job step may run before it is abandoned as failed. */
  jobStepTimeoutMs: number;
  /** How long an API key's authentication is remembered in process (a revocation is seen within it). */
  apiKeyCacheMs: number;
  /**
   * Calls to the project's own fine-tunes: `on-request` (OpenPipe's rule) logs them only when the
   * client asks (op-log-request: true, hone.logRequest: true or store: true); `always` logs all.
   */
  logFinetuneCalls: "always" | "on-request";
  /** A console session ends after this long without a request (sliding). */
  sessionIdleMs: number;
  /** ... and this long after sign-in, however active (absolute). */
  sessionMaxMs: number;
  /** Deepest nesting of arrays and objects accepted in any JSON a client sends (bodies, variables, inputs, lines). */
  maxJsonDepth: number;
  /** Refused calls logged one by one per key and minute; past it, counted into one row (domain/calls/refusals.ts). */
  refusalsLoggedPerMinute: number;
  /** Largest answer of one GraphQL operation or one tRPC batch, counted from stored sizes before loading. */
  maxResponseBytes: number;
  /** A logged payload larger than this is stored cut short, with a marker giving its size. */
  maxLoggedPayloadBytes: number;
  /** A request body that sends nothing for this long is answered 408. */
  bodyIdleTimeoutMs: number;
  /** A stream to a client that carried nothing for this long gets an SSE comment (keep-alive). */
  sseKeepAliveMs: number;
};

export class ConfigError extends Error {
  override name = "ConfigError";
}

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join("\n")}`);
  }
  const e = parsed.data;
  const prefixes = e.HONE_MODEL_PREFIXES.split(",")
    .map((p) => p.trim())
    .filter(Boolean);
  return {
    port: e.PORT,
    host: e.HOST,
    databaseUrl: e.DATABASE_URL,
    dataDir: e.HONE_DATA_DIR,
    pgliteTemplateDir: e.HONE_PGLITE_TEMPLATE_DIR === "off" ? null : (e.HONE_PGLITE_TEMPLATE_DIR ?? DEFAULT_PGLITE_TEMPLATE_DIR),
    secretKey: e.HONE_SECRET_KEY,
    bootstrapApiKey: e.HONE_BOOTSTRAP_API_KEY,
    adminToken: e.HONE_ADMIN_TOKEN,
    metricsToken: e.HONE_METRICS_TOKEN,
    openaiBaseUrl: e.OPENAI_BASE_URL.replace(/\/+$/, ""),
    anthropicBaseUrl: e.ANTHROPIC_BASE_URL.replace(/\/+$/, ""),
    geminiBaseUrl: e.GEMINI_BASE_URL.replace(/\/+$/, ""),
    togetherBaseUrl: e.TOGETHER_BASE_URL.replace(/\/+$/, ""),
    fireworksBaseUrl: e.FIREWORKS_BASE_URL.replace(/\/+$/, ""),
    openModelBackend: e.HONE_OPEN_MODEL_BACKEND,
    testingRoutes: e.HONE_TESTING_ROUTES,
    modelPrefixes: prefixes.length ? prefixes : ["hone"],
    maxBodyBytes: e.HONE_MAX_BODY_BYTES,
    maxImportBytes: e.HONE_MAX_IMPORT_BYTES,
    graphiql: e.HONE_GRAPHIQL,
    logLevel: e.HONE_LOG_LEVEL,
    dbPoolSize: e.HONE_DB_POOL_SIZE,
    upstreamTimeoutMs: e.HONE_UPSTREAM_TIMEOUT_MS,
    routing: {
      attempts: e.HONE_RETRY_ATTEMPTS,
      backoffMs: e.HONE_RETRY_BACKOFF_MS,
      retryAfterMaxMs: e.HONE_RETRY_AFTER_MAX_MS,
      circuitFailures: e.HONE_CIRCUIT_FAILURES,
      circuitWindowMs: e.HONE_CIRCUIT_WINDOW_MS,
      circuitCooldownMs: e.HONE_CIRCUIT_COOLDOWN_MS,
      routeCacheMs: e.HONE_ROUTE_CACHE_MS,
      routesFile: e.HONE_ROUTES_FILE,
    },
    logFlushMs: e.HONE_LOG_FLUSH_MS,
    limitDefaultOutputTokens: e.HONE_LIMIT_DEFAULT_OUTPUT_TOKENS,
    keyExpiryAlertDays: e.HONE_KEY_EXPIRY_ALERT_DAYS,
    auditRetentionDays: e.HONE_AUDIT_RETENTION_DAYS,
    consoleKeySignIn: e.HONE_CONSOLE_KEY_SIGNIN,
    oidc:
      e.HONE_OIDC_ISSUER && e.HONE_OIDC_CLIENT_ID
        ? {
            issuer: e.HONE_OIDC_ISSUER,
            clientId: e.HONE_OIDC_CLIENT_ID,
            clientSecret: e.HONE_OIDC_CLIENT_SECRET,
            allowedDomains: e.HONE_OIDC_ALLOWED_DOMAINS
              ? e.HONE_OIDC_ALLOWED_DOMAINS.split(",")
                  .map((d) => d.trim().toLowerCase().replace(/^@/, ""))
                  .filter(Boolean)
              : null,
            defaultRole: e.HONE_OIDC_DEFAULT_ROLE,
            organization: e.HONE_OIDC_ORGANIZATION,
          }
        : null,
    smtp: e.HONE_SMTP_URL ? { url: e.HONE_SMTP_URL, from: e.HONE_SMTP_FROM ?? "hone@localhost" } : null,
    publicUrl: e.HONE_PUBLIC_URL?.replace(/\/+$/, ""),
    openaiFineTuningEndsOn: e.HONE_OPENAI_FINE_TUNING_ENDS_ON,
    trainers: {
      artifactsDir:
        e.HONE_ARTIFACTS_DIR ??
        (e.HONE_DATA_DIR.startsWith("memory://") ? join(tmpdir(), `hone-artifacts-${process.pid}`) : `${e.HONE_DATA_DIR.replace(/\/+$/, "")}/artifacts`),
      maxFileBytes: e.HONE_MAX_ARTIFACT_FILE_BYTES,
      leaseSeconds: e.HONE_TRAINER_LEASE_SECONDS,
    },
    spool: {
      dir:
        e.HONE_SPOOL_DIR === "off"
          ? null
          : (e.HONE_SPOOL_DIR ?? (e.HONE_DATA_DIR.startsWith("memory://") ? null : `${e.HONE_DATA_DIR.replace(/\/+$/, "")}/spool`)),
      maxBytes: e.HONE_SPOOL_MAX_BYTES,
      syncMs: e.HONE_SPOOL_SYNC_MS,
    },
    logRetentionDays: e.HONE_LOG_RETENTION_DAYS,
    usageTagKey: e.HONE_USAGE_TAG_KEY,
    usageCloseGraceMs: e.HONE_USAGE_CLOSE_GRACE_MS,
    judgeTimeoutMs: e.HONE_JUDGE_TIMEOUT_MS,
    judgeConcurrency: e.HONE_JUDGE_CONCURRENCY,
    projectConcurrency: e.HONE_PROJECT_CONCURRENCY,
    projectQueue: e.HONE_PROJECT_QUEUE,
    projectCostPerSecond: e.HONE_PROJECT_COST_PER_SECOND,
    projectCostBurst: e.HONE_PROJECT_COST_BURST,
    evalConcurrency: e.HONE_EVAL_CONCURRENCY,
    fineTunePollMs: e.HONE_FINETUNE_POLL_MS,
    jobPollMs: e.HONE_JOB_POLL_MS,
    monitorPollMs: e.HONE_MONITOR_POLL_MS,
    worker: e.HONE_WORKER,
    graphqlMaxDepth: e.HONE_GRAPHQL_MAX_DEPTH,
    graphqlMaxAliases: e.HONE_GRAPHQL_MAX_ALIASES,
    graphqlMaxTokens: e.HONE_GRAPHQL_MAX_TOKENS,
    graphqlMaxCost: e.HONE_GRAPHQL_MAX_COST,
    maxPageSize: e.HONE_MAX_PAGE_SIZE,
    maxActiveApiKeys: e.HONE_MAX_ACTIVE_API_KEYS,
    maskingMode: e.HONE_MASKING_MODE,
    maskingPhoneRegion: e.HONE_MASKING_PHONE_REGION as import("libphonenumber-js").CountryCode,
    otelExport:
      !e.OTEL_SDK_DISABLED && (e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || e.OTEL_EXPORTER_OTLP_ENDPOINT)
        ? {
            url: e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? `${e.OTEL_EXPORTER_OTLP_ENDPOINT!.replace(/\/+$/, "")}/v1/traces`,
            headers: otlpHeaders(e.OTEL_EXPORTER_OTLP_HEADERS),
            protocol: e.OTEL_EXPORTER_OTLP_PROTOCOL,
            serviceName: e.OTEL_SERVICE_NAME,
            captureContent: e.HONE_OTEL_CAPTURE_CONTENT,
          }
        : null,
    otlpMaxBytes: e.HONE_OTLP_MAX_BYTES,
    otlpMaxSpans: e.HONE_OTLP_MAX_SPANS,
    otlpConcurrency: e.HONE_OTLP_CONCURRENCY,
    otlpAliasPath: e.HONE_OTLP_PREFIX === "off" ? null : `${e.HONE_OTLP_PREFIX}/v1/traces`,
    maskingAnalyzer: e.HONE_MASKING_ANALYZER_URL
      ? {
          url: e.HONE_MASKING_ANALYZER_URL,
          deadlineMs: e.HONE_MASKING_ANALYZER_DEADLINE_MS,
          entities: splitList(e.HONE_MASKING_ANALYZER_ENTITIES),
          minScore: e.HONE_MASKING_ANALYZER_MIN_SCORE,
          language: e.HONE_MASKING_ANALYZER_LANGUAGE,
        }
      : null,
    trpcMaxBatch: e.HONE_TRPC_MAX_BATCH,
    dbStatementTimeoutMs: e.HONE_DB_STATEMENT_TIMEOUT_MS,
    allowPrivateUpstreams: e.HONE_ALLOW_PRIVATE_UPSTREAMS,
    upstreamAllowlist: splitList(e.HONE_UPSTREAM_ALLOWLIST),
    trustedProxies: splitList(e.HONE_TRUSTED_PROXIES).map((entry) => parseIpRange(entry)!),
    jobLeaseMs: e.HONE_JOB_LEASE_MS,
    jobStepTimeoutMs: e.HONE_JOB_STEP_TIMEOUT_MS,
    apiKeyCacheMs: e.HONE_API_KEY_CACHE_MS,
    logFinetuneCalls: e.HONE_LOG_FINETUNE_CALLS,
    sessionIdleMs: e.HONE_SESSION_IDLE_MS,
    sessionMaxMs: e.HONE_SESSION_MAX_MS,
    maxJsonDepth: e.HONE_MAX_JSON_DEPTH,
    refusalsLoggedPerMinute: e.HONE_REFUSALS_LOGGED_PER_MINUTE,
    maxResponseBytes: e.HONE_MAX_RESPONSE_BYTES,
    maxLoggedPayloadBytes: e.HONE_MAX_LOGGED_PAYLOAD_BYTES,
    bodyIdleTimeoutMs: e.HONE_BODY_IDLE_TIMEOUT_MS,
    sseKeepAliveMs: e.HONE_SSE_KEEPALIVE_MS,
  };
}

/** OTEL_EXPORTER_OTLP_HEADERS: `key=value,key2=value2`, values URL-encoded (W3C Baggage's form, as OpenTelemetry reads it). */
function otlpHeaders(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of text.split(",")) {
    const at = pair.indexOf("=");
    if (at <= 0) continue;
    try {
      out[pair.slice(0, at).trim().toLowerCase()] = decodeURIComponent(pair.slice(at + 1).trim());
    } catch {
      out[pair.slice(0, at).trim().toLowerCase()] = pair.slice(at + 1).trim();
    }
  }
  return out;
}
