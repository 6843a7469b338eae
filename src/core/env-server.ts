import { z } from "zod";
import { boolFlag, emptyAsUndefined } from "./env-fields";

/** The environment variables of the server itself: listening, the database, secrets, tokens, sign-in, storage. */
export const SERVER_VARIABLES = {
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
  FIREWORKS_BASE_URL: z
    .url()
    .default("https://api.fireworks.ai")
    .describe("Fireworks: fine-tuning of open models (`<url>/v1/accounts/...`) and serving them (`<url>/inference/v1`)"),
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
};
