import { canonicalJson, sha256Hex } from "../../lib/canonical-json";

/**
 * Members that cannot change what the model answers, left out of the cache key. Everything else
 * in the body is in it, including members Hone does not know (provider-specific options), so an
 * unknown member can only cause a miss, never a false hit.
 */
export const KEY_EXCLUDED_MEMBERS = ["metadata", "store", "user", "stream", "stream_options", "hone"] as const;

/**
 * Left out of an embeddings request's key as well: the encoding. Hone re-encodes the vectors for
 * each client, so a float and a base64 request share an entry.
 */
export const EMBEDDINGS_KEY_EXCLUDED_MEMBERS = ["metadata", "user", "hone", "encoding_format"] as const;

/**
 * Left out of a passed-through request's key (a Message to Anthropic, a Response to OpenAI): what
 * cannot change the answer. The Anthropic beta flags are in the key (they can), as `beta`.
 */
export const NATIVE_KEY_EXCLUDED_MEMBERS = ["metadata", "store", "user", "stream", "hone", "previous_response_id"] as const;

/**
 * The cache key of a chat or embeddings request: SHA-256 over the project, the resolved upstream
 * (provider, custom provider id, upstream model) and the request members that can change the
 * output. An embeddings key also holds `api: "embeddings"`, which no chat key holds, so the two
 * can never name the same entry (chat keys are unchanged, so stored entries still hit).
 */
export function cacheKey(input: {
  projectId: string;
  target: string;
  upstreamModel: string;
  body: Record<string, unknown>;
  /** Other than chat, the API is part of the key, so answers of different shapes never share an entry. */
  api?: "chat" | "embeddings" | "messages" | "responses";
}): string {
  const embeddings = input.api === "embeddings";
  const native = input.api === "messages" || input.api === "responses";
  const excluded: readonly string[] = embeddings ? EMBEDDINGS_KEY_EXCLUDED_MEMBERS : native ? NATIVE_KEY_EXCLUDED_MEMBERS : KEY_EXCLUDED_MEMBERS;
  const members: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(input.body)) {
    if (k === "model" || excluded.includes(k)) continue;
    members[k] = v;
  }
  const material = canonicalJson({
    ...(input.api && input.api !== "chat" ? { api: input.api } : {}),
    project: input.projectId,
    target: input.target,
    model: input.upstreamModel,
    request: members,
  });
  return sha256Hex(material);
}
