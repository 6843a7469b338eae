import { resolve } from "node:path";
import { z } from "zod";
import type { Role } from "./key-scope";
import { type IpRange, parseIpRange } from "./ip-address";
import { parseAllowlistEntry } from "./providers/upstream-guard";

// The only place that reads the environment. Everything else receives a Config.

const boolFlag = z.enum(["true", "false", "1", "0", "yes", "no", "on", "off", ""]).transform((v) => v === "true" || v === "1" || v === "yes" || v === "on");

const splitList = (v: string) =>
  v
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean);

/** The project's own cache directory (beside its dependencies, where `bun install` puts them). */
const DEFAULT_PGLITE_TEMPLATE_DIR = resolve(import.meta.dir, "../node_modules/.cache/hone/pglite");

const emptyAsUndefined = (v: unknown) => (v === "" ? undefined : v);

/**
 * Every environment variable Hone reads. Each carries its documentation: a description, and where
 * the schema's own default does not say it (computed in loadConfig, or unset meaning something),
 * the default as prose (`docDefault`). docs/operations.md's table is printed from it
 * (`bun run docs:config`, src/print-config-docs.ts); a test fails on drift.
 */
export const EnvSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000).describe("the port the server listens on"),
  HOST: z.string().min(1).default("127.0.0.1").describe("the address the server listens on"),
  DATABASE_URL: z
    .preprocess(
      emptyAsUndefined,
      z
        .string()
        .regex(/^postgres(ql)?:\/\//, "DATABASE_URL must start with postgres:// or postgresql://")
        .optional(),
    )
    .meta({ description: "`postgres://…`: use that Postgres server", docDefault: "unset: embedded PGlite" }),
  HONE_DATA_DIR: z.string().min(1).default("./.hone").describe("embedded database folder; `memory://` keeps nothing"),
  HONE_SECRET_KEY: z.preprocess(emptyAsUndefined, z.string().optional()).meta({
    description: "32 bytes (64 hex characters or base64) that encrypt provider keys at rest",
    docDefault: "embedded: generated once into `HONE_DATA_DIR/secret.key` (mode 0600); with `DATABASE_URL`: **required** (`openssl rand -base64 32`)",
  }),
  HONE_BOOTSTRAP_API_KEY: z
    .preprocess(
      emptyAsUndefined,
      z
        .string()
        .regex(/^hone_sk_[A-Za-z0-9]{20,}$/, "HONE_BOOTSTRAP_API_KEY must look like hone_sk_<at least 20 letters or digits>")
        .optional(),
    )
    .describe("a key (`hone_sk_…`) registered at every start for the `default` project, created if missing; idempotent"),
  HONE_ADMIN_TOKEN: z.preprocess(emptyAsUndefined, z.string().min(16, "HONE_ADMIN_TOKEN must be at least 16 characters").optional()).meta({
    description: "bearer token (16+ characters) allowed to create projects (GraphQL `createProject`, tRPC `admin.createProject`)",
    docDefault: "unset: admin API off",
  }),
  HONE_METRICS_TOKEN: z
    .preprocess(emptyAsUndefined, z.string().min(16, "HONE_METRICS_TOKEN must be at least 16 characters").optional())
    .meta({ description: "bearer token (16+ characters) `GET /metrics` requires", docDefault: "unset: `/metrics` open on the listening address" }),
  OPENAI_BASE_URL: z.url().default("https://api.openai.com/v1").describe("upstream for `openai:` and bare model names"),
  ANTHROPIC_BASE_URL: z.url().default("https://api.anthropic.com").describe("upstream for `anthropic:` (native Messages API)"),
  GEMINI_BASE_URL: z.url().default("https://generativelanguage.googleapis.com/v1beta/openai").describe("upstream for `gemini:`"),
  TOGETHER_BASE_URL: z.url().default("https://api.together.xyz/v1").describe("fine-tuning and serving of open models"),
  HONE_TESTING_ROUTES: z
    .preprocess(emptyAsUndefined, boolFlag.optional())
    .transform((v) => v ?? false)
    .describe("`true` enables `GET /api/v1/local-testing-only-get-latest-logged-call`"),
  HONE_MODEL_PREFIXES: z.string().default("hone,openpipe").describe("comma-separated prefixes accepted for the project's own models"),
  HONE_MAX_BODY_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(10 * 1024 * 1024)
    .describe("largest request body accepted (413 above it)"),
  HONE_MAX_IMPORT_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(1024 * 1024 * 1024)
    .describe("largest JSONL file accepted by `POST /datasets/{id}/import` (streamed, never held whole)"),
  HONE_GRAPHIQL: z
    .preprocess(emptyAsUndefined, boolFlag.optional())
    .transform((v) => v ?? true)
    .describe("serve GraphiQL at `GET /graphql` (works offline)"),
  HONE_LOG_LEVEL: z
    .enum(["debug", "info", "warn", "error", "silent"])
    .default("info")
    .describe("what the server logs: `debug`, `info`, `warn`, `error`, `silent`"),
  HONE_DB_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10).describe("connections to the Postgres server per process"),
  HONE_UPSTREAM_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(100)
    .default(600_000)
    .describe(
      "longest a non-streamed provider call may take, whole body included; for a stream, the longest wait for headers and the longest silence between chunks",
    ),
  // Routing (fallbacks and routes): retries per target, backoff, Retry-After and circuits.
  HONE_RETRY_ATTEMPTS: z.coerce
    .number()
    .int()
    .min(1)
    .max(10)
    .default(2)
    .describe("attempts per target of a call with fallbacks, the first included (see Fallbacks and retries)"),
  HONE_RETRY_BACKOFF_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(60_000)
    .default(100)
    .describe("wait before the first retry, doubled for each next one; a random half of it is jitter"),
  HONE_RETRY_AFTER_MAX_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(600_000)
    .default(5_000)
    .describe("longest upstream `Retry-After` waited for; a longer one moves the call to the next target at once"),
  HONE_CIRCUIT_FAILURES: z.coerce
    .number()
    .int()
    .min(1)
    .max(10_000)
    .default(5)
    .describe("a target failing this many times within `HONE_CIRCUIT_WINDOW_MS` is tried last for `HONE_CIRCUIT_COOLDOWN_MS`, then probed"),
  HONE_CIRCUIT_WINDOW_MS: z.coerce
    .number()
    .int()
    .min(100)
    .max(3_600_000)
    .default(30_000)
    .describe("the window in which a target's failures are counted against `HONE_CIRCUIT_FAILURES`"),
  HONE_CIRCUIT_COOLDOWN_MS: z.coerce
    .number()
    .int()
    .min(100)
    .max(3_600_000)
    .default(30_000)
    .describe("how long a target whose circuit opened is tried last before it is probed"),
  HONE_ROUTE_CACHE_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(60_000)
    .default(1_000)
    .describe("how long a process keeps a route as read: a change reaches every process within it"),
  HONE_ROUTES_FILE: z
    .preprocess(emptyAsUndefined, z.string().max(4096).optional())
    .describe("a JSON or YAML file of routes, applied at start (a bad file stops the start) and on SIGHUP"),
  HONE_LOG_FLUSH_MS: z.coerce.number().int().min(0).max(10_000).default(50).describe("how long call logs gather before one batched insert"),
  HONE_LIMIT_DEFAULT_OUTPUT_TOKENS: z.coerce
    .number()
    .int()
    .min(1)
    .max(1_000_000)
    .default(1_024)
    .describe("output tokens a call reserves against token limits and budgets when it sets no `max_tokens` (`max_completion_tokens`, `max_output_tokens`)"),
  HONE_KEY_EXPIRY_ALERT_DAYS: z.coerce
    .number()
    .int()
    .min(0)
    .max(365)
    .default(7)
    .describe("days before a key's expiry that the `key.expiring` alert is sent (`0`: never)"),
  HONE_AUDIT_RETENTION_DAYS: z.coerce
    .number()
    .int()
    .min(1)
    .max(36_500)
    .default(400)
    .describe("days an audit event is kept; older ones are deleted every minute, a batch at a time"),
  HONE_CONSOLE_KEY_SIGNIN: z
    .enum(["true", "false", "1", "0"], { message: "HONE_CONSOLE_KEY_SIGNIN must be true or false" })
    .default("true")
    .transform((v) => v === "true" || v === "1")
    .describe("`false`: the console takes no API key or admin token at sign-in (people only); the keys keep working as bearer tokens"),
  HONE_OIDC_ISSUER: z
    .preprocess(emptyAsUndefined, z.string().url("HONE_OIDC_ISSUER must be the provider's issuer URL").optional())
    .describe(
      "single sign-on with an OpenID Connect provider: its issuer URL, as in its discovery document (single sign-on is on when this and `HONE_OIDC_CLIENT_ID` are set)",
    ),
  HONE_OIDC_CLIENT_ID: z.preprocess(emptyAsUndefined, z.string().max(500).optional()).describe("the client id registered at the single sign-on provider"),
  HONE_OIDC_CLIENT_SECRET: z
    .preprocess(emptyAsUndefined, z.string().max(2_000).optional())
    .describe("the client secret at the single sign-on provider; optional (a public client with PKCE)"),
  HONE_OIDC_ALLOWED_DOMAINS: z
    .preprocess(emptyAsUndefined, z.string().max(5_000).optional())
    .meta({ description: "comma-separated email domains allowed to sign in by single sign-on", docDefault: "any" }),
  HONE_OIDC_DEFAULT_ROLE: z
    .enum(["viewer", "member", "admin", "owner"])
    .default("viewer")
    .describe("the role (`viewer`, `member`, `admin`, `owner`) a person joins with on their first single sign-on"),
  HONE_OIDC_ORGANIZATION: z
    .preprocess(emptyAsUndefined, z.string().max(200).optional())
    .meta({ description: "the organisation (by name) a person joins on their first single sign-on", docDefault: "the oldest organisation" }),
  HONE_SMTP_URL: z
    .preprocess(emptyAsUndefined, z.string().url().optional())
    .describe("an SMTP server (`smtp://user:pass@host:587`) to email invitations through; without it the link is shown to the inviter only"),
  HONE_SMTP_FROM: z
    .preprocess(emptyAsUndefined, z.string().max(320).optional())
    .meta({ description: "the address invitations are emailed from", docDefault: "`hone@localhost`" }),
  HONE_PUBLIC_URL: z.preprocess(emptyAsUndefined, z.string().url().optional()).meta({
    description:
      "where people reach Hone (`https://hone.example.com`): invitation links and the single sign-on return address (register `<HONE_PUBLIC_URL>/auth/oidc/callback` at the provider)",
    docDefault: "`http://HOST:PORT`",
  }),
  HONE_SPOOL_DIR: z.preprocess(emptyAsUndefined, z.string().optional()).meta({
    description: "the durable log spool's directory (one subdirectory per process; see Durable logs); `off` for none",
    docDefault: "`<HONE_DATA_DIR>/spool` (none with an in-memory data directory)",
  }),
  HONE_PGLITE_TEMPLATE_DIR: z.preprocess(emptyAsUndefined, z.string().optional()).meta({
    description: "where a migrated copy of a fresh embedded database is kept, which every new data directory starts from (see Footprint); `off` for none",
    docDefault: "`node_modules/.cache/hone/pglite` in the project",
  }),
  HONE_SPOOL_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(0)
    .max(2 ** 50)
    .default(1024 ** 3)
    .describe(
      "the spool's size cap: past it, logs are not spooled (counted in `hone_logs_unspooled_total`) and `/report` answers 503 while the database is away",
    ),
  HONE_SPOOL_SYNC_MS: z.coerce.number().int().min(1).max(1_000).default(5).describe("group commit: the longest a spooled log waits for its fsync"),
  HONE_LOG_RETENTION_DAYS: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(1).optional()).meta({
    description:
      "drop logs older than this many days: whole day partitions are dropped, the day the limit falls in is deleted in batches (checked hourly); the Responses API's stored conversations are deleted at the same age",
    docDefault: "unset: keep forever",
  }),
  HONE_USAGE_TAG_KEY: z
    .string()
    .min(1)
    .max(200)
    .default("prompt_id")
    .describe("the metadata key whose values the usage rollups keep per hour (usage split or filtered by it is served from the rollups)"),
  HONE_USAGE_CLOSE_GRACE_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(86_400_000)
    .default(300_000)
    .describe("how long after an hour ends it is rolled up (logs still in a writer's batch make it in)"),
  HONE_JUDGE_TIMEOUT_MS: z.coerce.number().int().min(100).default(60_000).describe("longest a criterion judge call may take before its result is an error"),
  HONE_JUDGE_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(8).describe("judge calls an alignment run makes at once"),
  HONE_PROJECT_CONCURRENCY: z.coerce
    .number()
    .int()
    .min(1)
    .max(1024)
    .default(4)
    .describe("requests of one project running at once in each expensive lane: GraphQL operations, tRPC calls, exports, imports"),
  HONE_PROJECT_QUEUE: z.coerce
    .number()
    .int()
    .min(0)
    .max(10_000)
    .default(32)
    .describe("requests of one project waiting for a slot of a lane (each at most 15 s) before the next gets 429 with `Retry-After: 1`"),
  HONE_PROJECT_COST_PER_SECOND: z.coerce
    .number()
    .int()
    .min(1)
    .default(20_000)
    .describe("GraphQL cost (as `HONE_GRAPHQL_MAX_COST` counts it) one project may spend per second on average; past it, 429 with `Retry-After`"),
  HONE_PROJECT_COST_BURST: z.coerce
    .number()
    .int()
    .min(1)
    .default(200_000)
    .describe("GraphQL cost one project may spend at once (the bucket that refills at `HONE_PROJECT_COST_PER_SECOND`)"),
  HONE_EVAL_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(8).describe("(entry, model) pairs an evaluation or dataset task works on at once"),
  HONE_FINETUNE_POLL_MS: z.coerce.number().int().min(10).default(30_000).describe("how often a training job is checked at its backend"),
  HONE_JOB_POLL_MS: z.coerce.number().int().min(10).default(1_000).describe("how often an idle job worker looks for due jobs"),
  HONE_MONITOR_POLL_MS: z.coerce
    .number()
    .int()
    .min(10)
    .max(3_600_000)
    .default(2_000)
    .describe('how often an idle monitor runner looks for calls offered to the monitors (see "Monitors")'),
  HONE_WORKER: z
    .preprocess(emptyAsUndefined, boolFlag.optional())
    .transform((v) => v ?? true)
    .describe("run the background job worker and monitor runner in this process (`false` for API-only processes)"),
  // Wave 2 hardening: limits an attacker holding a valid key runs into.
  HONE_GRAPHQL_MAX_DEPTH: z.coerce
    .number()
    .int()
    .min(1)
    .max(100)
    .default(10)
    .describe("deepest nesting of fields in one GraphQL operation (see Security and limits)"),
  HONE_GRAPHQL_MAX_ALIASES: z.coerce.number().int().min(1).max(1000).default(15).describe("most aliases in one GraphQL operation (see Security and limits)"),
  HONE_GRAPHQL_MAX_TOKENS: z.coerce
    .number()
    .int()
    .min(10)
    .max(1_000_000)
    .default(2_000)
    .describe("most lexer tokens in one GraphQL operation (see Security and limits)"),
  HONE_GRAPHQL_MAX_COST: z.coerce
    .number()
    .int()
    .min(1)
    .max(100_000_000)
    .default(20_000)
    .describe("highest estimated cost of one GraphQL operation (see Security and limits)"),
  HONE_MAX_PAGE_SIZE: z.coerce
    .number()
    .int()
    .min(1)
    .max(10_000)
    .default(200)
    .describe("largest page (`first`) of any list, on GraphQL and tRPC (`limit` on REST lists)"),
  HONE_TRPC_MAX_BATCH: z.coerce.number().int().min(1).max(1_000).default(10).describe("most calls in one tRPC batch"),
  HONE_DB_STATEMENT_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(0)
    .default(30_000)
    .describe("Postgres `statement_timeout` of every connection (`0`: none); not enforced by PGlite"),
  HONE_ALLOW_PRIVATE_UPSTREAMS: z
    .preprocess(emptyAsUndefined, boolFlag.optional())
    .transform((v) => v ?? false)
    .describe("`true` lets custom providers reach loopback, private and link-local addresses (a local vLLM or Ollama); cloud metadata addresses stay refused"),
  HONE_UPSTREAM_ALLOWLIST: z
    .string()
    .default("")
    .superRefine((v, c) => {
      for (const entry of splitList(v)) {
        try {
          parseAllowlistEntry(entry);
        } catch (err) {
          c.addIssue({ code: "custom", message: (err as Error).message });
        }
      }
    })
    .describe("comma-separated hosts, `host:port` pairs, IPs or CIDRs custom providers may reach besides public addresses"),
  HONE_TRUSTED_PROXIES: z
    .string()
    .default("")
    .superRefine((v, c) => {
      for (const entry of splitList(v)) {
        if (parseIpRange(entry) === null) c.addIssue({ code: "custom", message: `HONE_TRUSTED_PROXIES entry "${entry}" is not an IP address or CIDR` });
      }
    })
    .meta({
      description:
        "comma-separated IPs or CIDRs (IPv4, IPv6) of your reverse proxies: from them `X-Forwarded-For` names the client for sign-in throttling (see Security and limits)",
      docDefault: "empty: the TCP peer is the client",
    }),
  HONE_JOB_LEASE_MS: z.coerce
    .number()
    .int()
    .min(1_000)
    .default(60_000)
    .describe("how long a claimed job is held before another worker may take it; renewed every third of it while a step runs"),
  HONE_JOB_STEP_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(1_000)
    .default(15 * 60_000)
    .describe("longest one job step may run before it is aborted and counted as a failed attempt"),
  HONE_API_KEY_CACHE_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(60_000)
    .default(5_000)
    .describe("how long a process remembers an API key's authentication; a revoked key is refused by every process within it"),
  HONE_LOG_FINETUNE_CALLS: z
    .enum(["always", "on-request"])
    .default("on-request")
    .describe(
      "`always`: log every call to the project's fine-tunes; `on-request` (OpenPipe's rule): only with `op-log-request: true`, `hone.logRequest: true` or `store: true`",
    ),
  HONE_SESSION_IDLE_MS: z.coerce
    .number()
    .int()
    .min(1_000)
    .default(12 * 3_600_000)
    .describe("a console session ends after this long without a request (sliding)"),
  HONE_SESSION_MAX_MS: z.coerce
    .number()
    .int()
    .min(1_000)
    .default(7 * 24 * 3_600_000)
    .describe("a console session ends this long after sign-in, however active"),
  // Issue 38: what one request may cost the process, whatever it asks for.
  HONE_MAX_JSON_DEPTH: z.coerce
    .number()
    .int()
    .min(16)
    .max(10_000)
    .default(128)
    .describe(
      "deepest nesting of arrays and objects in any JSON a client sends: REST bodies, reports, GraphQL variables, tRPC inputs, JSONL lines (400 past it)",
    ),
  HONE_MAX_RESPONSE_BYTES: z.coerce
    .number()
    .int()
    .min(64 * 1024)
    .default(32 * 1024 * 1024)
    .describe("largest answer of one GraphQL operation or one tRPC batch, counted from stored sizes before anything is loaded"),
  HONE_MAX_LOGGED_PAYLOAD_BYTES: z.coerce
    .number()
    .int()
    .min(64 * 1024)
    .max(128 * 1024 * 1024, "HONE_MAX_LOGGED_PAYLOAD_BYTES may be at most 128 MiB (Postgres refuses larger JSON values)")
    .default(32 * 1024 * 1024)
    .describe("a logged request or response payload larger than this is stored cut short, with a marker giving its size (at most 128 MiB)"),
  HONE_BODY_IDLE_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(100)
    .max(3_600_000)
    .default(30_000)
    .describe("a request body that sends nothing for this long is answered 408 and its connection closed"),
  HONE_SSE_KEEPALIVE_MS: z.coerce
    .number()
    .int()
    .min(50)
    .max(600_000)
    .default(15_000)
    .describe("a stream to a client that carried nothing for this long gets an SSE comment (`: keep-alive`)"),
});

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
    maxResponseBytes: e.HONE_MAX_RESPONSE_BYTES,
    maxLoggedPayloadBytes: e.HONE_MAX_LOGGED_PAYLOAD_BYTES,
    bodyIdleTimeoutMs: e.HONE_BODY_IDLE_TIMEOUT_MS,
    sseKeepAliveMs: e.HONE_SSE_KEEPALIVE_MS,
  };
}
