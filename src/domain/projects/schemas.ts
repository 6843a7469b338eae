import { z } from "zod";

export const CreateProjectInput = z.object({
  name: z.string().trim().min(1, "name must not be empty").max(200),
});
export type CreateProjectInput = z.infer<typeof CreateProjectInput>;

export const ApiKeyString = z.string().regex(/^hone_sk_[A-Za-z0-9]{20,}$/, "an API key looks like hone_sk_ followed by letters and digits");

export const CreateApiKeyInput = z.object({
  projectId: z.string().min(1),
  /** Register this exact key instead of generating one (bootstrap). */
  apiKey: ApiKeyString.optional(),
});
export type CreateApiKeyInput = z.infer<typeof CreateApiKeyInput>;

export type CreatedProject = { projectId: string; name: string; apiKey: string };
export type CreatedApiKey = { keyId: string; projectId: string; apiKey: string };
export type Authenticated = { projectId: string; keyId: string };
