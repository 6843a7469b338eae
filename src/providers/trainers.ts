import { DomainError } from "../errors";
import { readUpstreamBody, upstreamHttpError } from "./http";

type TrainerJobState = {
  status: "queued" | "running" | "succeeded" | "failed" | "cancelled";
  /** The id to call the trained model by, once it succeeded. */
  modelId: string | null;
  error: string | null;
};

export interface Trainer {
  uploadTrainingFile(jsonl: string, fileName: string): Promise<string>;
  createJob(input: { fileId: string; baseModel: string; hyperparameters: Record<string, unknown>; suffix: string; method?: TrainingMethod }): Promise<string>;
  getJob(jobId: string): Promise<TrainerJobState>;
  cancelJob(jobId: string): Promise<void>;
}

/** Supervised fine-tuning on chat lines, or DPO on preference lines (with its beta; null: the backend's default). */
export type TrainingMethod = { type: "sft" } | { type: "dpo"; beta: number | null };

export type TrainerTarget = { backend: "openai" | "together"; baseUrl: string; apiKey: string };
export type TrainerFactory = (target: TrainerTarget) => Trainer;

type Http = { fetch: typeof fetch; timeoutMs: number };

async function call(http: Http, label: string, url: string, init: RequestInit): Promise<Record<string, unknown>> {
  let res: Response;
  try {
    res = await http.fetch(url, { ...init, signal: AbortSignal.timeout(http.timeoutMs) });
  } catch (err) {
    throw new DomainError("UPSTREAM_ERROR", `Could not reach ${label}: ${err instanceof Error ? err.message : String(err)}`, { upstreamStatus: 502 });
  }
  const body = await readUpstreamBody(res);
  if (!res.ok) throw upstreamHttpError(label, res.status, body);
  if (typeof body !== "object" || body === null)
    throw new DomainError("UPSTREAM_ERROR", `${label} answered with something that is not JSON`, { upstreamStatus: 502 });
  return body as Record<string, unknown>;
}

function jsonlFile(jsonl: string, name: string): Blob {
  return new File([jsonl], name, { type: "application/jsonl" });
}

/** OpenAI's fine-tuning API (also Azure OpenAI's): files, fine_tuning/jobs, poll, cancel. */
function openAiTrainer(t: TrainerTarget, http: Http): Trainer {
  const auth = { authorization: `Bearer ${t.apiKey}` };
  const label = "OpenAI fine-tuning";
  return {
    async uploadTrainingFile(jsonl, fileName) {
      const form = new FormData();
      form.append("purpose", "fine-tune");
      form.append("file", jsonlFile(jsonl, fileName));
      return String((await call(http, label, `${t.baseUrl}/files`, { method: "POST", headers: auth, body: form })).id);
    },
    async createJob({ fileId, baseModel, hyperparameters, suffix, method }) {
      const body = {
        training_file: fileId,
        model: baseModel,
        suffix,
        method:
          method?.type === "dpo"
            ? { type: "dpo", dpo: { hyperparameters: { ...hyperparameters, ...(method.beta != null ? { beta: method.beta } : {}) } } }
            : { type: "supervised", supervised: { hyperparameters } },
      };
      return String(
        (
          await call(http, label, `${t.baseUrl}/fine_tuning/jobs`, {
            method: "POST",
            headers: { ...auth, "content-type": "application/json" },
            body: JSON.stringify(body),
          })
        ).id,
      );
    },
    async getJob(jobId) {
      const j = await call(http, label, `${t.baseUrl}/fine_tuning/jobs/${encodeURIComponent(jobId)}`, { headers: auth });
      const s = String(j.status);
      const status = s === "succeeded" ? "succeeded" : s === "failed" ? "failed" : s === "cancelled" ? "cancelled" : s === "running" ? "running" : "queued";
      const err = j.error as { message?: string } | null | undefined;
      return { status, modelId: typeof j.fine_tuned_model === "string" ? j.fine_tuned_model : null, error: err?.message ?? null };
    },
    async cancelJob(jobId) {
      await call(http, label, `${t.baseUrl}/fine_tuning/jobs/${encodeURIComponent(jobId)}/cancel`, { method: "POST", headers: auth });
    },
  };
}

/** Together's fine-tuning API (LoRA on open models): files/upload, fine-tunes, poll, cancel. */
function togetherTrainer(t: TrainerTarget, http: Http): Trainer {
  const auth = { authorization: `Bearer ${t.apiKey}` };
  const label = "Together fine-tuning";
  return {
    async uploadTrainingFile(jsonl, fileName) {
      const form = new FormData();
      form.append("purpose", "fine-tune");
      form.append("file_name", fileName);
      form.append("file", jsonlFile(jsonl, fileName));
      return String((await call(http, label, `${t.baseUrl}/files/upload`, { method: "POST", headers: auth, body: form })).id);
    },
    async createJob({ fileId, baseModel, hyperparameters, suffix, method }) {
      const body = {
        training_file: fileId,
        model: baseModel,
        suffix,
        lora: true,
        ...hyperparameters,
        ...(method?.type === "dpo" ? { training_method: { method: "dpo", ...(method.beta != null ? { dpo_beta: method.beta } : {}) } } : {}),
      };
      return String(
        (
          await call(http, label, `${t.baseUrl}/fine-tunes`, {
            method: "POST",
            headers: { ...auth, "content-type": "application/json" },
            body: JSON.stringify(body),
          })
        ).id,
      );
    },
    async getJob(jobId) {
      const j = await call(http, label, `${t.baseUrl}/fine-tunes/${encodeURIComponent(jobId)}`, { headers: auth });
      const s = String(j.status);
      const status =
        s === "completed"
          ? "succeeded"
          : s === "error" || s === "failed"
            ? "failed"
            : s === "cancelled" || s === "cancel_requested"
              ? "cancelled"
              : s === "pending" || s === "queued"
                ? "queued"
                : "running";
      const events = Array.isArray(j.events) ? (j.events as { message?: string; level?: string }[]) : [];
      const error = status === "failed" ? (events.filter((e) => e.level === "error").at(-1)?.message ?? "training failed") : null;
      return { status, modelId: typeof j.output_name === "string" ? j.output_name : null, error };
    },
    async cancelJob(jobId) {
      await call(http, label, `${t.baseUrl}/fine-tunes/${encodeURIComponent(jobId)}/cancel`, { method: "POST", headers: auth });
    },
  };
}

export function createTrainerFactory(http: Http): TrainerFactory {
  return (target) => (target.backend === "openai" ? openAiTrainer(target, http) : togetherTrainer(target, http));
}
