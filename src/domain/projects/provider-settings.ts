import { z } from "zod";
import { MAX_BASE_URL_LENGTH } from "../../core/limits";

const PROVIDERS = ["openai", "anthropic", "gemini", "together", "fireworks"] as const;
export const Provider = z.enum(PROVIDERS, { error: `provider must be one of ${PROVIDERS.join(", ")}` });
export type Provider = z.infer<typeof Provider>;

/** A provider has at most this many keys (a key pool). */
export const MAX_KEYS_PER_PROVIDER = 20;
export const DEFAULT_KEY_NAME = "default";
const KeyName = z
  .string()
  .regex(/^[a-z0-9][a-z0-9._-]{0,62}$/, "name must be lowercase letters, digits, dots, dashes or underscores (up to 63), starting with a letter or digit");

/** What a stored key's encryption is bound to (the default key keeps the form it always had). */
export function providerKeyContext(projectId: string, provider: string, name: string): string {
  return name === DEFAULT_KEY_NAME ? `provider-key:${projectId}:${provider}` : `provider-key:${projectId}:${provider}:${name}`;
}

export const SetProviderKeyInput = z.strictObject({
  provider: Provider,
  apiKey: z.string().trim().min(8, "apiKey looks too short to be a provider key").max(1000),
  /** Several keys of one provider (a key pool) have names; one key alone is "default". */
  name: KeyName.nullish().transform((n) => n ?? DEFAULT_KEY_NAME),
  /** Its share of the provider's calls, relative to the pool's other keys. */
  weight: z
    .number()
    .int()
    .min(1)
    .max(1000)
    .nullish()
    .transform((w) => w ?? 1),
});
export type SetProviderKeyInput = z.input<typeof SetProviderKeyInput>;

export const ProviderKeyInput = z.strictObject({ provider: Provider, name: KeyName.nullish().transform((n) => n ?? DEFAULT_KEY_NAME) });

const CustomProviderSlug = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]{0,62}$/, "slug must be lowercase letters, digits and dashes (up to 63), starting with a letter or digit");

const CustomProviderFields = z.strictObject({
  slug: CustomProviderSlug,
  kind: z.enum(["openai", "azure", "vllm"], {
    error: "kind must be openai (any OpenAI-compatible API), azure, or vllm (a vLLM server that serves the adapters of Hone's trainers)",
  }),
  baseUrl: z
    .string()
    .max(MAX_BASE_URL_LENGTH, `baseUrl must be at most ${MAX_BASE_URL_LENGTH} characters`)
    .pipe(z.url({ protocol: /^https?$/, error: "baseUrl must be an http(s) URL" })),
  apiKey: z.string().trim().min(1).max(1000).nullish(),
  apiVersion: z.string().trim().min(1).max(50).nullish(),
  /** kind vllm: the base model the server serves, as trainer models name it (a Hugging Face id or a path). */
  baseModel: z.string().trim().min(1).max(500).nullish(),
});

/** What a kind needs: azure a version, vllm its base model (and only vllm has one). */
const kindNeeds = (v: { kind?: string; apiVersion?: string | null; baseModel?: string | null }, c: z.RefinementCtx) => {
  if (v.kind === "azure" && !v.apiVersion) {
    c.addIssue({ code: "custom", path: ["apiVersion"], message: "apiVersion is required for azure (e.g. 2024-10-21)" });
  }
  if (v.kind === "vllm" && !v.baseModel) {
    c.addIssue({
      code: "custom",
      path: ["baseModel"],
      message: "baseModel is required for vllm: the base model the server serves, as your trainer models name it",
    });
  }
  if (v.kind !== undefined && v.kind !== "vllm" && v.baseModel) {
    c.addIssue({ code: "custom", path: ["baseModel"], message: "baseModel is for kind vllm only" });
  }
};

export const CreateCustomProviderInput = CustomProviderFields.superRefine(kindNeeds);
export type CreateCustomProviderInput = z.input<typeof CreateCustomProviderInput>;

export const CustomProviderIdInput = z.strictObject({ id: z.string().min(1).max(100) });

/**
 * Every field optional: what is given replaces the stored value; `apiKey: null` removes the key,
 * `apiVersion: null` the version (the result must still be valid, azure needs a version).
 */
export const UpdateCustomProviderInput = CustomProviderFields.partial().extend({ id: z.string().min(1).max(100) });
export type UpdateCustomProviderInput = z.input<typeof UpdateCustomProviderInput>;

export type ProviderKeyInfo = { provider: Provider; name: string; weight: number; last4: string; updatedAt: Date };
export type CustomProviderInfo = {
  id: string;
  slug: string;
  kind: "openai" | "azure" | "vllm";
  baseUrl: string;
  apiVersion: string | null;
  baseModel: string | null;
  keyLast4: string | null;
  createdAt: Date;
};
