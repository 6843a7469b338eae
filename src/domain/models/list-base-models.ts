import { BASE_MODELS, trainingEndsOn } from "./catalogue";

export type BaseModelInfo = {
  id: string;
  backend: "openai" | "together" | "fireworks";
  contextWindow: number;
  maxCompletionTokens: number;
  capabilities: string[];
  /** USD per million tokens for calling the fine-tuned model (input, output) and for training (per epoch). */
  pricing: { inputPerMillion: number; outputPerMillion: number; trainingPerMillion: number };
  /** The backend's hyperparameters: name, default, what it does. */
  hyperparameters: Hyperparameter[];
  /** The day the backend stops taking new fine-tunes of this model, or null; and what that means, in words. */
  trainingEndsOn: string | null;
  warning: string | null;
};

export type Hyperparameter = { name: string; default: string; description: string };

/** What each backend's hyperparameters mean (the names are the backend's own). */
export const HYPERPARAMETERS: Record<"openai" | "together" | "fireworks", Hyperparameter[]> = {
  openai: [
    { name: "n_epochs", default: "auto", description: "Passes over the training data; auto lets OpenAI choose from the dataset's size (usually 3)." },
    { name: "batch_size", default: "auto", description: "Examples per gradient step; larger is steadier but slower to adapt." },
    { name: "learning_rate_multiplier", default: "auto", description: "Scales OpenAI's learning rate; lower it if the model overfits." },
  ],
  together: [
    { name: "n_epochs", default: "1", description: "Passes over the training data (1 to 20)." },
    { name: "learning_rate", default: "0.00001", description: "Step size of the optimiser (at most 0.01)." },
    { name: "batch_size", default: "max", description: "Examples per step; max uses the largest the model allows." },
    { name: "lora_r", default: "8", description: "Rank of the LoRA adapters: higher learns more, costs more memory." },
    { name: "lora_alpha", default: "16", description: "Scale of the LoRA update, usually twice lora_r." },
    { name: "warmup_ratio", default: "0", description: "Share of steps over which the learning rate ramps up." },
  ],
  fireworks: [
    { name: "epochs", default: "1", description: "Passes over the training data." },
    { name: "learningRate", default: "0.0001", description: "Step size of the optimiser." },
    { name: "loraRank", default: "8", description: "Rank of the LoRA adapter: higher learns more, costs more memory." },
    { name: "maxContextLength", default: "8192", description: "Tokens per sequence; longer ones are cut." },
    { name: "batchSize", default: "32768", description: "Tokens packed into each training step." },
    { name: "accountId", default: "the key's account", description: "The Fireworks account to train in, when the key sees several." },
  ],
};

/** The base models a project can fine-tune, with what the console's picker shows. */
export function listBaseModels(config: { openaiFineTuningEndsOn: string }): BaseModelInfo[] {
  return BASE_MODELS.map((m) => {
    const endsOn = trainingEndsOn(m, config);
    return {
      id: m.id,
      backend: m.backend,
      contextWindow: m.contextWindow,
      maxCompletionTokens: m.maxCompletionTokens,
      capabilities: [...m.capabilities],
      pricing: { inputPerMillion: m.pricing.chatIn, outputPerMillion: m.pricing.chatOut, trainingPerMillion: m.pricing.training },
      hyperparameters: HYPERPARAMETERS[m.backend],
      trainingEndsOn: endsOn,
      warning: endsOn
        ? `${m.backend === "openai" ? "OpenAI" : m.backend} takes no new fine-tunes of this model from ${endsOn}: train an open model with Hone's trainer (provider "trainer") or on Together instead`
        : null,
    };
  });
}
