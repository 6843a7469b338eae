import type { ControlHeaders } from "../../domain/calls";

// The op-* request headers of the gateway endpoints: read in one place, documented in one place.

/** The op-* headers as they arrived (the verbs parse them). */
export function controlHeadersOf(h: Headers): ControlHeaders {
  return {
    logRequest: h.get("op-log-request"),
    cache: h.get("op-cache"),
    criteria: h.get("op-criteria"),
    tags: h.get("op-tags"),
    fallbacks: h.get("op-fallbacks"),
  };
}

/** The op-* headers for the OpenAPI document; `criteria` describes where the results go on that endpoint. */
export function controlHeaderDocs(criteria: string): Record<string, string> {
  return {
    "op-log-request": "true | false (default true)",
    "op-cache": "readWrite | readOnly | writeOnly | true | false",
    "op-criteria": criteria,
    "op-tags": "JSON object of metadata tags",
    "op-fallbacks": 'JSON array of model strings tried in turn when the model fails (429, 5xx, timeouts), e.g. ["anthropic:claude-sonnet-4-5"]',
  };
}
