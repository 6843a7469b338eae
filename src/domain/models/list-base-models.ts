import { BASE_MODELS } from "./catalogue";

export type BaseModelInfo = {
  id: string;
  backend: "openai" | "together";
  contextWindow: number;
  maxCompletionTokens: number;
  capabilities: string[];
  /** USD per million tokens for calling the fine-tuned model (input, output). */
  pricing: { inputPerMillion: number; outputPerMillion: number };
};

/** The base models a project can fine-tune, with what the console's picker shows. */
export function listBaseModels(): BaseModelInfo[] {
  return BASE_MODELS.map((m) => ({
    id: m.id,
    backend: m.backend,
    contextWindow: m.contextWindow,
    maxCompletionTokens: m.maxCompletionTokens,
    capabilities: [...m.capabilities],
    pricing: { inputPerMillion: m.pricing.chatIn, outputPerMillion: m.pricing.chatOut },
  }));
}
