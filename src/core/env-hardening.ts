import { isSupportedCountry } from "libphonenumber-js";
import { z } from "zod";
import { boolFlag, emptyAsUndefined, splitList } from "./env-fields";
import { parseIpRange } from "../lib/ip-address";
import { parseAllowlistEntry } from "../lib/allowlist-entry";

/** The environment variables that bound what one request or one key may cost the process. */
export const HARDENING_VARIABLES = {
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
  HONE_MASKING_MODE: z
    .enum(["off", "mask_stored", "mask_upstream", "block"])
    .default("off")
    .describe("the least masking of sensitive data every project gets (off, mask_stored, mask_upstream, block); a project's rules may be stricter"),
  HONE_MASKING_PHONE_REGION: z
    .string()
    .regex(/^[A-Z]{2}$/, "a two-letter region code (US, GB, DE)")
    .refine((r) => isSupportedCountry(r), "a region libphonenumber knows (US, GB, DE, …)")
    .default("US")
    .describe("the region a phone number without a country code is read in, for masking"),
  HONE_MASKING_ANALYZER_URL: z
    .preprocess(
      emptyAsUndefined,
      z.url({ protocol: /^https?$/, error: "an http(s) URL: the Presidio analyzer's base (http://presidio-analyzer:3000)" }).optional(),
    )
    .describe(
      "an external analyzer (Microsoft Presidio's analyzer service) that finds names, places and other entities a pattern cannot, for masking; unset: the built-in recognizers only",
    ),
  HONE_MASKING_ANALYZER_DEADLINE_MS: z.coerce
    .number()
    .int()
    .min(10)
    .max(30_000)
    .default(1_000)
    .describe(
      "how long the analyzer may take over one call's text; past it (or when it is away) the call is masked with the built-in recognizers and its log flagged",
    ),
  HONE_MASKING_ANALYZER_ENTITIES: z
    .string()
    .default("PERSON,LOCATION,NRP")
    .refine(
      (v) => splitList(v).length > 0 && splitList(v).every((e) => /^[A-Z][A-Z0-9_]{1,29}$/.test(e)),
      "entity types in capitals, comma-separated (PERSON,LOCATION)",
    )
    .describe("the analyzer's entity types masked (each a kind of its own: <PERSON_1>)"),
  HONE_MASKING_ANALYZER_MIN_SCORE: z.coerce.number().min(0).max(1).default(0.5).describe("the least score an analyzer's finding needs to be masked"),
  HONE_MASKING_ANALYZER_LANGUAGE: z
    .string()
    .regex(/^[a-z]{2}$/, "a two-letter language code the analyzer has a model for (en)")
    .default("en")
    .describe("the language the analyzer reads texts in"),
  HONE_OTLP_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(1024 * 1024 * 1024)
    .default(16 * 1024 * 1024)
    .describe("largest OTLP trace export the receiver takes (bytes as sent; a gzip body may unpack to four times this)"),
  HONE_OTLP_CONCURRENCY: z.coerce
    .number()
    .int()
    .min(1)
    .max(64)
    .default(2)
    .describe(
      "OTLP exports stored at once by a Postgres server's ingest thread (more: queued; past 256 waiting, or 64 MiB, a 429). On PGlite, or while that thread is down, exports are stored one at a time on the serving thread (measured in docs/traces.md)",
    ),
  HONE_OTLP_MAX_SPANS: z.coerce
    .number()
    .int()
    .min(1)
    .max(1_000_000)
    .default(10_000)
    .describe("most spans one OTLP export may carry (the rest are rejected, counted in its partial success)"),
  HONE_OTLP_PREFIX: z
    .string()
    .regex(/^(off|(\/[A-Za-z0-9._~-]+)*)$/, 'a path such as /otlp (no trailing slash), empty for the root, or "off"')
    .refine(
      (p) => !/^\/(api|graphql|trpc|console|health|metrics|auth|internal)(\/|$)/.test(p),
      "a path of its own, not under Hone's API, console or health paths",
    )
    .default("")
    .describe(
      "the OTLP receiver also answers at <this>/v1/traces, where an exporter with OTEL_EXPORTER_OTLP_ENDPOINT=https://<hone><this> sends (empty: /v1/traces; off: only /api/v1/otel/v1/traces)",
    ),
  HONE_MAX_ACTIVE_API_KEYS: z.coerce
    .number()
    .int()
    .min(1)
    .max(1_000_000)
    .default(10_000)
    .describe("active (unrevoked) API keys one project may hold (one per end user is a common use)"),
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
  HONE_REFUSALS_LOGGED_PER_MINUTE: z.coerce
    .number()
    .int()
    .min(0)
    .max(100_000)
    .default(60)
    .describe(
      "calls Hone refuses (limits, budgets, allowed models, scopes) logged one by one per key and minute; past it, the key's refusals of the minute are counted into one log row",
    ),
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
};
