import { z } from "zod";
import { MAX_API_KEY_NAME_LENGTH, MAX_ID_LENGTH } from "../../limits";

export const CreateProjectInput = z.object({
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

export const CreateApiKeyInput = z.object({
  projectId: z.string().min(1).max(MAX_ID_LENGTH),
  name: ApiKeyName.nullish(),
  /** Register this exact key instead of generating one (bootstrap). */
  apiKey: ApiKeyString.optional(),
});
export type CreateApiKeyInput = z.input<typeof CreateApiKeyInput>;

/** What a project's own key may ask for: a new key of the same project, optionally named. */
export const NewApiKeyInput = z.object({ name: ApiKeyName.nullish() });
export type NewApiKeyInput = z.input<typeof NewApiKeyInput>;

export const RevokeApiKeyInput = z.object({ id: z.string().min(1, "must not be empty").max(MAX_ID_LENGTH) });
export type RevokeApiKeyInput = z.input<typeof RevokeApiKeyInput>;

/** A new label for one of the project's keys: the same rules as a name given at creation. */
export const RenameApiKeyInput = z.object({ id: z.string().min(1, "must not be empty").max(MAX_ID_LENGTH), name: ApiKeyName });
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
};

export type CreatedProject = { projectId: string; name: string; apiKey: string };
/** `apiKey` is the key itself, returned this once. */
export type CreatedApiKey = { keyId: string; projectId: string; apiKey: string; key: ApiKeyInfo };
export type Authenticated = { projectId: string; keyId: string };
