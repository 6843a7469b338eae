/** A call to be logged, as the gateway and the report endpoints produce it. */
export type NewRequestLog = {
  id: string;
  projectId: string;
  source: "gateway" | "report" | "report-anthropic";
  provider: string | null;
  model: string | null;
  completionId: string | null;
  statusCode: number | null;
  errorMessage: string | null;
  requestedAt: Date | null;
  receivedAt: Date | null;
  durationMs: number | null;
  inputTokens: number | null;
  outputTokens: number | null;
  costUsd: number | null;
  cacheHit: boolean;
  metadata: Record<string, string>;
  reqPayload: unknown;
  respPayload: unknown;
  /** Set when the payloads above are converted (Anthropic reports): what was reported. */
  reqPayloadOriginal?: unknown;
  respPayloadOriginal?: unknown;
};
