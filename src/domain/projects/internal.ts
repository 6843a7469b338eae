import type { KeyScope } from "../../core/key-scope";
import { apiKeys } from "../../db/schema";
import { randomBase62 } from "../../lib/ids";
import type { ApiKeyInfo } from "./schemas";

const API_KEY_PREFIX = "hone_sk_";

export function generateApiKey(): string {
  return API_KEY_PREFIX + randomBase62(40);
}

export function hashApiKey(key: string): string {
  return Bun.SHA256.hash(key, "hex");
}

/** How a listed key is shown: the fixed prefix and the last 4 characters (the only part stored). */
export function toApiKeyInfo(row: {
  id: string;
  name: string | null;
  keyHint: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  expiresAt: Date | null;
  scopes: KeyScope[];
  allowedModels: string[] | null;
  metadata: Record<string, string> | null;
  createdBy: string | null;
  owner: "person" | "project";
}): ApiKeyInfo {
  return {
    id: row.id,
    name: row.name,
    prefix: `${API_KEY_PREFIX}…${row.keyHint}`,
    createdAt: row.createdAt,
    lastUsedAt: row.lastUsedAt,
    revokedAt: row.revokedAt,
    expiresAt: row.expiresAt,
    scopes: row.scopes,
    allowedModels: row.allowedModels,
    metadata: row.metadata ?? {},
    createdBy: row.createdBy,
    owner: row.owner === "person" ? "person" : "project",
  };
}

/** The columns toApiKeyInfo needs (never the hash). */
export const apiKeyInfoColumns = {
  id: apiKeys.id,
  name: apiKeys.name,
  keyHint: apiKeys.keyHint,
  createdAt: apiKeys.createdAt,
  lastUsedAt: apiKeys.lastUsedAt,
  revokedAt: apiKeys.revokedAt,
  expiresAt: apiKeys.expiresAt,
  scopes: apiKeys.scopes,
  allowedModels: apiKeys.allowedModels,
  metadata: apiKeys.metadata,
  createdBy: apiKeys.createdBy,
  owner: apiKeys.owner,
};
