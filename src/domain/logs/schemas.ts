import type { Masker, Recognizer, Span } from "../../lib/masking";
import type { InternalKind } from "../../core/internal-kinds";
import type { LogApi, RequestLog } from "./inputs";

/** A call to be logged, as the gateway and the report endpoints produce it: a log's row plus its bodies. */
export type NewRequestLog = Omit<
  RequestLog,
  | "source"
  | "internalKind"
  | "api"
  | "createdAt"
  | "warning"
  | "reqBytes"
  | "respBytes"
  | "inputPreview"
  | "outputPreview"
  | "cachedInputTokens"
  | "cacheWriteTokens"
  | "reasoningTokens"
  | "classes"
  | "priceVersion"
  | "costFlag"
  | "attempts"
  | "route"
  | "routeVersion"
  | "refusal"
  | "refusals"
  | "masked"
  | "masking"
  | "traceId"
  | "spanId"
  | "parentSpanId"
  | "sessionId"
> & {
  /** Where the call sits in a trace (absent: not known). */
  traceId?: string | null;
  spanId?: string | null;
  parentSpanId?: string | null;
  sessionId?: string | null;
  /**
   * Sensitive values to mask in everything stored of this log (domain/masking), where the row is
   * built: the mode the call ran under, and the kinds (null: every kind). Absent: none.
   */
  mask?: {
    mode: "mask_stored" | "mask_upstream" | "block";
    kinds: string[] | null;
    /** The recognizers (the built-in ones and the project's own); absent: the built-in ones. Never serialised. */
    recognizers?: readonly Recognizer[];
    /** The call's own masker (mask_upstream): the log continues its placeholders. Never serialised: logRow runs where the call did. */
    masker?: Masker;
    /** Spans the external analyzer found, by text (domain/masking/analyzer.ts). */
    known?: Map<string, readonly Span[]>;
    /** The analyzer's answer: the row is built once it resolves (it never rejects). */
    ready?: Promise<void>;
    /** What the log's warning says when the analyzer did not see all of its text; absent: it did, or there is none. */
    analyzer?: string | null;
  } | null;
  /** A refused call (domain/calls/refusals.ts): why, and how many calls the row counts. */
  refusal?: RequestLog["refusal"];
  refusals?: number | null;
  attempts?: RequestLog["attempts"];
  route?: string | null;
  routeVersion?: string | null;
  /** Tokens a fine-tune's pruning rules removed from the request (absent: none). */
  prunedTokens?: number | null;
  /** Tokens by class (absent: not reported). */
  cachedInputTokens?: number | null;
  cacheWriteTokens?: number | null;
  reasoningTokens?: number | null;
  /** Tokens and cost per class, the price used, and why there is no plain cost (domain/pricing). */
  classes?: Record<string, number> | null;
  priceVersion?: string | null;
  costFlag?: string | null;
  projectId: string;
  warning?: string | null;
  source: "gateway" | "report" | "report-anthropic" | "otel" | "internal";
  internalKind?: InternalKind | null;
  /** The protocol the client spoke (default chat). */
  api?: LogApi;
  reqPayload: unknown;
  respPayload: unknown;
  /** Set when the payloads above are converted (Anthropic reports): what was reported. */
  reqPayloadOriginal?: unknown;
  respPayloadOriginal?: unknown;
};
