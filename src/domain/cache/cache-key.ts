import { canonicalJson, sha256Hex } from "../../canonical-json";

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
  api?: "chat" | "embeddings";
}): string {
  const embeddings = input.api === "embeddings";
  const excluded: readonly string[] = embeddings ? EMBEDDINGS_KEY_EXCLUDED_MEMBERS : KEY_EXCLUDED_MEMBERS;
  const members: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(input.body)) {
    if (k === "model" || excluded.includes(k)) continue;
    members[k] = v;
  }
  const material = canonicalJson({
    ...(embeddings ? { api: "embeddings" } : {}),
    project: input.projectId,
    target: input.target,
    model: input.upstreamModel,
    request: members,
  });
  return sha256Hex(material);
}
