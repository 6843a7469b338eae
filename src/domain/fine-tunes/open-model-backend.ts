import { DomainError } from "../../core/errors";
import type { Config } from "../../core/config";
import { BASE_MODELS, findBaseModel, findOpenModel } from "../models";

/** Where a fine-tune goes: Hone's trainers with a Hugging Face id, or a managed backend with its catalogue id. */
export type Placement =
  | { backend: "trainer"; baseModel: string; settings: Record<string, unknown> }
  | { backend: "managed"; baseModel: string; hyperparameters: Record<string, unknown> };

const bad = (message: string) => new DomainError("VALIDATION", message, { issues: [{ message, path: ["trainingConfig", "baseModel"] }] });

/** Together-style names (what the OpenPipe SDK sends) in Hone trainer's settings. */
function trainerSettings(hp: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (typeof hp.n_epochs === "number") out.epochs = hp.n_epochs;
  if (typeof hp.learning_rate === "number") out.learningRate = hp.learning_rate;
  if (typeof hp.batch_size === "number") out.batchSize = hp.batch_size;
  if (typeof hp.lora_r === "number" || typeof hp.lora_alpha === "number") {
    out.lora = { ...(typeof hp.lora_r === "number" ? { r: hp.lora_r } : {}), ...(typeof hp.lora_alpha === "number" ? { alpha: hp.lora_alpha } : {}) };
  }
  return out;
}

/** Together-style names in Fireworks' own (its batch size counts tokens, so an example count is not carried over). */
function fireworksSettings(hp: Record<string, unknown>): Record<string, unknown> {
  const { n_epochs, learning_rate, lora_r, batch_size: _b, lora_alpha: _a, warmup_ratio: _w, ...own } = hp;
  return {
    ...own,
    ...(typeof n_epochs === "number" ? { epochs: n_epochs } : {}),
    ...(typeof learning_rate === "number" ? { learningRate: learning_rate } : {}),
    ...(typeof lora_r === "number" ? { loraRank: lora_r } : {}),
  };
}

/**
 * An open model asked for through the OpenPipe SDK (or trainingConfig.provider `openpipe`) goes to
 * the backend the operator chose, HONE_OPEN_MODEL_BACKEND: Hone's trainers (the model's Hugging
 * Face id), Together or Fireworks (their own name for it). A closed model (OpenAI's) stays where it is.
 */
export function placeOpenModel(config: Pick<Config, "openModelBackend">, name: string, hyperparameters: Record<string, unknown>): Placement {
  const known = findBaseModel(name);
  if (known?.backend === "openai") return { backend: "managed", baseModel: known.id, hyperparameters };
  const hf = known?.hf ?? BASE_MODELS.find((m) => m.hf?.toLowerCase() === name.toLowerCase())?.hf;
  // A name the catalogue does not know goes on as it is (and is refused as unknown, with the list).
  if (!known && !hf) return { backend: "managed", baseModel: name, hyperparameters };
  const target = config.openModelBackend;
  if (target === "trainer" && hf) {
    return { backend: "trainer", baseModel: hf, settings: trainerSettings(hyperparameters) };
  }
  const there = target === "trainer" ? undefined : findOpenModel(name, target);
  if (!there) {
    const offered = BASE_MODELS.filter((m) => m.backend === target).map((m) => m.hf ?? m.id);
    throw bad(`${name} is not among the open models this server trains on ${target} (HONE_OPEN_MODEL_BACKEND): ${offered.join(", ")}`);
  }
  return { backend: "managed", baseModel: there.id, hyperparameters: target === "fireworks" ? fireworksSettings(hyperparameters) : hyperparameters };
}
