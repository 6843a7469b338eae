import { z } from "zod";
import { boolFlag, emptyAsUndefined } from "./env-fields";

/** The environment variables of the gateway: routing, retries, circuits, upstreams, caches, jobs. */
export const ROUTING_VARIABLES = {
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
  // Hone's own spans out (docs/traces.md): the standard OpenTelemetry variables.
  OTEL_EXPORTER_OTLP_ENDPOINT: z
    .preprocess(emptyAsUndefined, z.url({ protocol: /^https?$/ }).optional())
    .describe("export a span per gateway call to this OTLP/HTTP collector (its base: /v1/traces is added); unset: no export"),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z
    .preprocess(emptyAsUndefined, z.url({ protocol: /^https?$/ }).optional())
    .describe("the collector's trace endpoint itself (taken as it is), in place of OTEL_EXPORTER_OTLP_ENDPOINT"),
  OTEL_EXPORTER_OTLP_HEADERS: z
    .string()
    .default("")
    .describe("headers sent with each export, `key=value` pairs separated by commas (values URL-encoded), as OpenTelemetry reads them"),
  OTEL_EXPORTER_OTLP_PROTOCOL: z
    .enum(["http/protobuf", "http/json"], { error: "Hone exports over OTLP/HTTP: http/protobuf or http/json (grpc is not supported)" })
    .default("http/protobuf")
    .describe("how spans are encoded: http/protobuf or http/json"),
  OTEL_SERVICE_NAME: z.string().min(1).max(200).default("hone").describe("the service.name of Hone's spans"),
  OTEL_SDK_DISABLED: z
    .preprocess(emptyAsUndefined, boolFlag.optional())
    .transform((v) => v ?? false)
    .describe("true: no spans are exported whatever else is set"),
  HONE_OTEL_CAPTURE_CONTENT: z
    .preprocess(emptyAsUndefined, boolFlag.optional())
    .transform((v) => v ?? false)
    .describe(
      "true: Hone's spans carry the calls' messages (gen_ai.input.messages, gen_ai.output.messages), as stored after masking; default: only the figures",
    ),
  HONE_PUBLIC_URL: z.preprocess(emptyAsUndefined, z.string().url().optional()).meta({
    description:
      "where people reach Hone (`https://hone.example.com`): invitation links and the single sign-on return address (register `<HONE_PUBLIC_URL>/auth/oidc/callback` at the provider)",
    docDefault: "`http://HOST:PORT`",
  }),
  HONE_OPEN_MODEL_BACKEND: z
    .enum(["trainer", "together", "fireworks"])
    .default("together")
    .describe(
      "where a fine-tune of an open model goes when the OpenPipe SDK (or trainingConfig.provider `openpipe`) asks for one: Hone's trainers, Together or Fireworks",
    ),
  HONE_OPENAI_FINE_TUNING_ENDS_ON: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/, "HONE_OPENAI_FINE_TUNING_ENDS_ON is a day, YYYY-MM-DD")
    .default("2027-01-06")
    .describe(
      "the day OpenAI stops taking new fine-tunes (its deprecations page): from it, creating one is a 400 naming the open-model backends; an organisation OpenAI still serves can move it",
    ),
  HONE_ARTIFACTS_DIR: z.preprocess(emptyAsUndefined, z.string().optional()).meta({
    description: "where the weights Hone's trainers upload are kept (adapters, checkpoints), a folder per model",
    docDefault: "`<HONE_DATA_DIR>/artifacts` (a temporary folder with an in-memory data directory)",
  }),
  HONE_MAX_ARTIFACT_FILE_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(1024 ** 4)
    .default(16 * 1024 ** 3)
    .describe("the largest file a trainer may upload (one weights shard or checkpoint file)"),
  HONE_TRAINER_LEASE_SECONDS: z.coerce
    .number()
    .int()
    .min(5)
    .max(3600)
    .default(60)
    .describe("how long a trainer holds a training job without a heartbeat; then the job is leased again and resumes from its last checkpoint"),
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
};
