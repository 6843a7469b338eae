import type { Config } from "../../core/config";
import type { TrainerTarget } from "../../providers/trainers";

/** Where a managed backend's fine-tuning API is for a model, with the account its settings name (Fireworks). */
export function backendTarget(
  config: Pick<Config, "openaiBaseUrl" | "togetherBaseUrl" | "fireworksBaseUrl">,
  row: { backend: "openai" | "together" | "fireworks"; hyperparameters: Record<string, unknown> },
  apiKey: string,
): TrainerTarget {
  const baseUrl = row.backend === "openai" ? config.openaiBaseUrl : row.backend === "fireworks" ? config.fireworksBaseUrl : config.togetherBaseUrl;
  const account = typeof row.hyperparameters.accountId === "string" ? row.hyperparameters.accountId : null;
  return { backend: row.backend, baseUrl, apiKey, account };
}
