// Base models Hone can fine-tune, kept as data. Pricing is USD per million tokens for serving the
// fine-tuned model (chatIn: input, chatOut: output) and for training (training: per token of
// training data per epoch), from each backend's published price list when this was written
// (Together: its LoRA supervised fine-tuning price for the model's size class; Fireworks: its
// serverless price for the base, and its LoRA tuning price by size class). An open model carries
// its Hugging Face id (`hf`): the OpenPipe SDK's `openpipe` provider sends it to the backend the
// operator chose (HONE_OPEN_MODEL_BACKEND), which trains it under its own name.
type Capability = "chat" | "tools" | "json";
type BaseModel = {
  id: string;
  backend: "openai" | "together" | "fireworks";
  /** An open model's Hugging Face id (what Hone's trainers load). */
  hf?: string;
  contextWindow: number;
  maxCompletionTokens: number;
  capabilities: Capability[];
  pricing: { chatIn: number; chatOut: number; training: number };
};

/**
 * The day a backend stops taking new fine-tunes, when it has said so. OpenAI's self-serve
 * fine-tuning refuses new organisations since 2026-05-07 and everyone from 2027-01-06 (its
 * deprecations page; HONE_OPENAI_FINE_TUNING_ENDS_ON): from it, a new OpenAI fine-tune is refused,
 * naming the open-model backends; before it, the catalogue carries the date as a warning.
 */
export function trainingEndsOn(model: Pick<BaseModel, "backend">, config: { openaiFineTuningEndsOn: string }): string | null {
  return model.backend === "openai" ? config.openaiFineTuningEndsOn : null;
}

const openai = (id: string, contextWindow: number, maxCompletionTokens: number, chatIn: number, chatOut: number, training: number): BaseModel => ({
  id,
  backend: "openai",
  contextWindow,
  maxCompletionTokens,
  capabilities: ["chat", "tools", "json"],
  pricing: { chatIn, chatOut, training },
});
// Together's LoRA training price by size class: up to 16B, 17-69B, 70-100B parameters.
const SMALL = 0.48;
const MEDIUM = 1.5;
const LARGE = 2.9;
const open = (
  id: string,
  contextWindow: number,
  chatIn: number,
  chatOut: number,
  training: number,
  capabilities: Capability[] = ["chat", "tools", "json"],
  hf = id.replace(/-Reference$/, "").replace("Meta-Llama-3.1", "Llama-3.1"),
): BaseModel => ({
  id,
  hf,
  backend: "together",
  contextWindow,
  maxCompletionTokens: 8192,
  capabilities,
  pricing: { chatIn, chatOut, training },
});

// Fireworks' LoRA tuning price by size class: up to 16B, 16-80B parameters.
const FW_SMALL = 0.5;
const FW_LARGE = 3;
const fireworks = (id: string, hf: string, contextWindow: number, chatIn: number, chatOut: number, training: number): BaseModel => ({
  id: `accounts/fireworks/models/${id}`,
  hf,
  backend: "fireworks",
  contextWindow,
  maxCompletionTokens: 8192,
  capabilities: ["chat", "tools", "json"],
  pricing: { chatIn, chatOut, training },
});

export const BASE_MODELS: BaseModel[] = [
  openai("gpt-4.1-2025-04-14", 1_047_576, 32_768, 3, 12, 25),
  openai("gpt-4.1-mini-2025-04-14", 1_047_576, 32_768, 0.8, 3.2, 5),
  openai("gpt-4o-mini-2024-07-18", 128_000, 16_384, 0.3, 1.2, 3),
  openai("gpt-4o-2024-08-06", 128_000, 16_384, 3.75, 15, 25),
  openai("gpt-3.5-turbo-0125", 16_385, 4_096, 3, 6, 8),
  open("meta-llama/Meta-Llama-3.1-8B-Instruct-Reference", 131_072, 0.18, 0.18, SMALL),
  open("meta-llama/Meta-Llama-3.1-70B-Instruct-Reference", 131_072, 0.88, 0.88, LARGE),
  open("meta-llama/Llama-3.3-70B-Instruct-Reference", 131_072, 0.88, 0.88, LARGE),
  open("meta-llama/Llama-3.2-3B-Instruct", 131_072, 0.06, 0.06, SMALL),
  open("Qwen/Qwen2.5-7B-Instruct", 32_768, 0.3, 0.3, SMALL),
  open("Qwen/Qwen2.5-14B-Instruct", 32_768, 0.8, 0.8, SMALL),
  open("Qwen/Qwen2.5-72B-Instruct", 32_768, 1.2, 1.2, LARGE),
  open("Qwen/Qwen3-8B", 40_960, 0.2, 0.2, SMALL),
  open("google/gemma-3-12b-it", 131_072, 0.3, 0.3, SMALL, ["chat", "json"]),
  open("google/gemma-3-27b-it", 131_072, 0.8, 0.8, MEDIUM, ["chat", "json"]),
  open("mistralai/Mistral-Nemo-Base-2407", 128_000, 0.2, 0.2, SMALL, ["chat"]),
  fireworks("llama-v3p1-8b-instruct", "meta-llama/Llama-3.1-8B-Instruct", 131_072, 0.2, 0.2, FW_SMALL),
  fireworks("llama-v3p3-70b-instruct", "meta-llama/Llama-3.3-70B-Instruct", 131_072, 0.9, 0.9, FW_LARGE),
  fireworks("qwen2p5-7b-instruct", "Qwen/Qwen2.5-7B-Instruct", 32_768, 0.2, 0.2, FW_SMALL),
  fireworks("qwen3-8b", "Qwen/Qwen3-8B", 40_960, 0.2, 0.2, FW_SMALL),
];

/**
 * The catalogue entry of an open model on a backend, by its id there or its Hugging Face id (what
 * the OpenPipe SDK sends): how HONE_OPEN_MODEL_BACKEND places it.
 */
export function findOpenModel(name: string, backend: "together" | "fireworks"): BaseModel | undefined {
  const wanted = name.toLowerCase();
  const hfOf = findBaseModel(name)?.hf?.toLowerCase();
  return BASE_MODELS.find(
    (m) => m.backend === backend && (m.id.toLowerCase() === wanted || m.hf?.toLowerCase() === wanted || (hfOf && m.hf?.toLowerCase() === hfOf)),
  );
}

export function findBaseModel(id: string): BaseModel | undefined {
  return BASE_MODELS.find((m) => m.id === id);
}
