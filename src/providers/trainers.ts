import { fireworksTrainer } from "./fireworks-trainer";
import {
  call,
  type Http,
  isoOf,
  jsonlFile,
  num,
  openDownload,
  type Trainer,
  type TrainerFactory,
  type TrainerTarget,
  type TrainingProgress,
} from "./trainer-http";

export type { BackendWeights, RemoteFile, Trainer, TrainerFactory, TrainerTarget, TrainingMethod, TrainingProgress } from "./trainer-http";

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
    async getProgress(jobId) {
      const base = `${t.baseUrl}/fine_tuning/jobs/${encodeURIComponent(jobId)}`;
      // Metrics events: {type: "metrics", data: {step, train_loss, valid_loss, ...}}.
      const events = await call(http, label, `${base}/events?limit=100`, { headers: auth });
      const points: TrainingProgress["points"] = [];
      for (const e of Array.isArray(events.data) ? (events.data as Record<string, unknown>[]) : []) {
        const d = e.data as Record<string, unknown> | null | undefined;
        if (e.type !== "metrics" || !d || num(d.step) === null) continue;
        points.push({ step: num(d.step)!, trainLoss: num(d.train_loss), validLoss: num(d.valid_loss) ?? num(d.full_valid_loss) });
      }
      const cps = await call(http, label, `${base}/checkpoints?limit=10`, { headers: auth });
      const checkpoints: TrainingProgress["checkpoints"] = [];
      for (const c of Array.isArray(cps.data) ? (cps.data as Record<string, unknown>[]) : []) {
        const m = (c.metrics ?? {}) as Record<string, unknown>;
        checkpoints.push({
          id: String(c.id),
          step: num(c.step_number) ?? num(m.step) ?? 0,
          model: typeof c.fine_tuned_model_checkpoint === "string" ? c.fine_tuned_model_checkpoint : null,
          trainLoss: num(m.train_loss),
          validLoss: num(m.valid_loss) ?? num(m.full_valid_loss),
          at: isoOf(c.created_at),
        });
      }
      return { points, checkpoints };
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
    async downloadWeights({ jobId }) {
      // Together packs the adapter as one compressed tar (zstd), streamed as it sends it.
      const res = await openDownload(http, label, `${t.baseUrl}/finetune/download?ft_id=${encodeURIComponent(jobId)}&checkpoint=adapter`, { headers: auth });
      const length = Number(res.headers.get("content-length"));
      return {
        kind: "archive",
        body: res.body!,
        bytes: Number.isFinite(length) && length > 0 ? length : null,
        contentType: res.headers.get("content-type") ?? "application/octet-stream",
        extension: "tar.zst",
      };
    },
    async getProgress(jobId) {
      // Together's events carry the step and, in training progress events, the losses (as members
      // or in the message, "train_loss: 1.23"); a checkpoint event names its checkpoint.
      const events = await call(http, label, `${t.baseUrl}/fine-tunes/${encodeURIComponent(jobId)}/events`, { headers: auth });
      const points: TrainingProgress["points"] = [];
      const checkpoints: TrainingProgress["checkpoints"] = [];
      const lossIn = (message: string, name: RegExp) => {
        const m = name.exec(message);
        return m ? Number(m[1]) : null;
      };
      const list = Array.isArray(events.data) ? (events.data as Record<string, unknown>[]) : [];
      for (const e of list.slice(-500)) {
        const step = num(e.step);
        if (step === null) continue;
        const message = typeof e.message === "string" ? e.message : "";
        const trainLoss = num(e.train_loss) ?? lossIn(message, /train(?:ing)?[ _]loss[:=]\s*([0-9.]+)/i);
        const validLoss = num(e.valid_loss) ?? lossIn(message, /(?:valid(?:ation)?|eval)[ _]loss[:=]\s*([0-9.]+)/i);
        if (trainLoss !== null || validLoss !== null) points.push({ step, trainLoss, validLoss });
        if (typeof e.checkpoint_path === "string" && e.checkpoint_path) {
          checkpoints.push({
            id: e.checkpoint_path,
            step,
            model: e.checkpoint_path,
            trainLoss,
            validLoss,
            at: typeof e.created_at === "string" ? e.created_at : null,
          });
        }
      }
      return { points, checkpoints };
    },
  };
}

export function createTrainerFactory(http: Http): TrainerFactory {
  return (target) =>
    target.backend === "openai" ? openAiTrainer(target, http) : target.backend === "fireworks" ? fireworksTrainer(target, http) : togetherTrainer(target, http);
}
