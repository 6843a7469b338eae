import { z } from "zod";
import type { KeyGrant } from "../../core/key-scope";
import type { KeyScope } from "../../core/key-scope";
import { MAX_API_KEY_NAME_LENGTH, MAX_ID_LENGTH, MAX_MODEL_LENGTH } from "../../core/limits";

export const CreateProjectInput = z.strictObject({
  name: z.string().trim().min(1, "name must not be empty").max(200),
});
export type CreateProjectInput = z.infer<typeof CreateProjectInput>;

const ApiKeyString = z.string().regex(/^hone_sk_[A-Za-z0-9]{20,}$/, "an API key looks like hone_sk_ followed by letters and digits");

/** A person's label for a key ("ci", "laptop"): shown in lists, so one printable line. */
const ApiKeyName = z
  .string()
  .trim()
  .min(1, "must not be empty")
  .max(MAX_API_KEY_NAME_LENGTH, `must be at most ${MAX_API_KEY_NAME_LENGTH} characters`)
  .regex(/^[^\p{Cc}]*$/u, "must not contain control characters");

/** Most allowed-model globs and metadata entries one key may carry. */
export const MAX_KEY_MODELS = 100;
export const MAX_KEY_METADATA = 20;

/** What a key may be used for; every scope by default. */
const KeyScopes = z
  .array(z.enum(["gateway", "read", "write", "trainer"], { error: "a scope is gateway, read, write or trainer" }))
  .min(1, "give at least one scope (gateway, read, write; or trainer alone)")
  .max(3)
  .refine((a) => new Set(a).size === a.length, "scopes must not repeat")
  .refine((a) => !a.includes("trainer") || a.length === 1, "trainer is a scope of its own: a trainer token has no other scope");

/** Model strings the key may call, as globs: `openai:gpt-4o*`, `anthropic:*`, `hone:support-*`. */
const AllowedModels = z
  .array(
    z
      .string()
      .min(1, "a model glob must not be empty")
      .max(MAX_MODEL_LENGTH)
      .regex(/^[^\s\p{Cc}]+$/u, "a model glob has no spaces or control characters"),
  )
  .max(MAX_KEY_MODELS, `at most ${MAX_KEY_MODELS} model globs`);

/** A person's notes about a key (owner, app): short strings by short names. */
const KeyMetadata = z
  .record(
    z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, "a metadata name is 1 to 64 letters, digits, _ . or -"),
    z
      .string()
      .max(500, "a metadata value is at most 500 characters")
      .regex(/^[^\p{Cc}]*$/u, "a metadata value has no control characters"),
  )
  .refine((m) => Object.keys(m).length <= MAX_KEY_METADATA, `at most ${MAX_KEY_METADATA} metadata entries`);

const ExpiresAt = z.coerce
  .date({ error: "expiresAt must be a date (ISO 8601)" })
  .refine((d) => d.getUTCFullYear() >= 2000 && d.getUTCFullYear() <= 9999, "expiresAt must be a date between the years 2000 and 9999");

/** What a scoped key may carry besides its name (creation and update alike). */
/** Who a new key belongs to: the person making it (the default for a person), or the project (a service key that outlives them). */
const KeyOwner = z.enum(["me", "project"], { error: `owner must be "me" or "project"` });

const KeyGrantFields = {
  /** After it the key is refused; absent or null: never. */
  expiresAt: ExpiresAt.nullish(),
  /** Model globs the key may call; absent or null: any model. */
  allowedModels: AllowedModels.nullish(),
  scopes: KeyScopes.nullish(),
  metadata: KeyMetadata.nullish(),
};

export const CreateApiKeyInput = z.strictObject({
  projectId: z.string().min(1).max(MAX_ID_LENGTH),
  name: ApiKeyName.nullish(),
  owner: KeyOwner.nullish(),
  /** Register this exact key instead of generating one (bootstrap). */
  apiKey: ApiKeyString.optional(),
  ...KeyGrantFields,
});
export type CreateApiKeyInput = z.input<typeof CreateApiKeyInput>;

/** What a project's own key may ask for: a new key of the same project, optionally named and scoped. */
export const NewApiKeyInput = z.strictObject({ name: ApiKeyName.nullish(), owner: KeyOwner.nullish(), ...KeyGrantFields });
export type NewApiKeyInput = z.input<typeof NewApiKeyInput>;

/** Changes a key's grant: each field given replaces the key's (null clears expiresAt, allowedModels, metadata). */
export const UpdateApiKeyInput = z.strictObject({
  id: z.string().min(1, "must not be empty").max(MAX_ID_LENGTH),
  name: ApiKeyName.nullish(),
  ...KeyGrantFields,
});
export type UpdateApiKeyInput = z.input<typeof UpdateApiKeyInput>;

export const RevokeApiKeyInput = z.strictObject({ id: z.string().min(1, "must not be empty").max(MAX_ID_LENGTH) });
export type RevokeApiKeyInput = z.input<typeof RevokeApiKeyInput>;

/** A new label for one of the project's keys: the same rules as a name given at creation. */
export const RenameApiKeyInput = z.strictObject({ id: z.string().min(1, "must not be empty").max(MAX_ID_LENGTH), name: ApiKeyName });
export type RenameApiKeyInput = z.input<typeof RenameApiKeyInput>;

/**
 * A key as it is listed: never the key or its hash. `prefix` is `hone_sk_…` and the key's last 4
 * characters (all that is stored of it besides the hash), enough to tell keys apart.
 */
export type ApiKeyInfo = {
  id: string;
  name: string | null;
  prefix: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  /** After it the key is refused; null: never. */
  expiresAt: Date | null;
  /** What the key may be used for: `gateway` (model calls, reports), `read` and `write` (the management APIs). */
  scopes: KeyScope[];
  /** Model strings (globs) the key may call; null: any. */
  allowedModels: string[] | null;
  /** A person's notes about the key (owner, app). */
  metadata: Record<string, string>;
  /** The id of the person who made it; null: made by the CLI, the admin token, or before makers were kept. */
  createdBy: string | null;
  /** `person`: acts for its maker (at most with their role) and stops when they leave; `project`: a service key. */
  owner: "person" | "project";
};

export type CreatedProject = { projectId: string; name: string; apiKey: string };
/** `apiKey` is the key itself, returned this once. */
export type CreatedApiKey = { keyId: string; projectId: string; apiKey: string; key: ApiKeyInfo };
export type Authenticated = { projectId: string; keyId: string; expiresAt: Date | null; grant: KeyGrant };
