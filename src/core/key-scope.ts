/**
 * What an API key may be used for: the gateway (model calls and reports), reading the management
 * APIs, changing through them; or, alone, `trainer`: a trainer token, which leases and reports
 * training jobs (and reads their entries) and nothing else.
 */
export type KeyScope = "gateway" | "read" | "write" | "trainer";

/**
 * What an API key may do (api_keys.scopes, allowed_models); a key owned by a person also never more
 * than that person's role in the project now (`maxRole`).
 */
export type KeyGrant = { scopes: readonly KeyScope[]; allowedModels: readonly string[] | null; maxRole?: Role; ownerId?: string };

/** What a member of an organisation may do, from least to most: read; read and write data; manage keys and settings; everything (members, deletion). */
export type Role = "viewer" | "member" | "admin" | "owner";

export const ROLES: readonly Role[] = ["viewer", "member", "admin", "owner"];
