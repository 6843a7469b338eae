import { canonicalJson, sha256Hex } from "../../canonical-json";

/**
 * Members that cannot change what the model answers, left out of the cache key. Everything else
 * in the body is in it, including members Hone does not know (provider-specific options), so an
 * unknown member can only cause a miss, never a false hit.
 */
export const KEY_EXCLUDED_MEMBERS = ["metadata", "store", "user", "stream", "stream_options", "hone"] as const;

/**
 * The cache key of a chat request: SHA-256 over the project, the resolved upstream (provider,
 * custom provider id, upstream model) and the request members that can change the output.
 */
export function cacheKey(input: { projectId: string; target: string; upstreamModel: string; body: Record<string, unknown> }): string {
  const members: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(input.body)) {
    if (k === "model" || (KEY_EXCLUDED_MEMBERS as readonly string[]).includes(k)) continue;
    members[k] = v;
  }
  const material = canonicalJson({ project: input.projectId, target: input.target, model: input.upstreamModel, request: members });
  return sha256Hex(material);
}
