import { DomainError } from "../core/errors";
import { readUpstreamBody } from "./http";
import { upstreamHttpError } from "./upstream-errors";

// What the fine-tuning backends' clients share: the Trainer they each implement, and one JSON call
// with a deadline whose failures become the house's errors.

export type TrainerJobState = {
  status: "queued" | "running" | "succeeded" | "failed" | "cancelled";
  /** The id to call the trained model by, once it succeeded. */
  modelId: string | null;
  error: string | null;
};

export interface Trainer {
  uploadTrainingFile(jsonl: string, fileName: string): Promise<string>;
  createJob(input: { fileId: string; baseModel: string; hyperparameters: Record<string, unknown>; suffix: string; method?: TrainingMethod }): Promise<string>;
  getJob(jobId: string): Promise<TrainerJobState>;
  /** The job's loss over steps and its checkpoints, from the backend's events (the newest 100) and checkpoints. */
  getProgress(jobId: string): Promise<TrainingProgress>;
  cancelJob(jobId: string): Promise<void>;
  /** The trained adapter, where the backend lets it go (absent: it does not). */
  downloadWeights?(trained: { jobId: string; modelId: string }): Promise<BackendWeights>;
}

/** A file of weights read from a byte on (a download resumed). */
export type RemoteFile = { path: string; bytes: number; read(from: number): AsyncIterable<Uint8Array> };

/** A backend's weights: one archive as the backend packs it, streamed as it comes; or files, for Hone's tar. */
export type BackendWeights =
  | { kind: "archive"; body: ReadableStream<Uint8Array>; bytes: number | null; contentType: string; extension: string }
  | { kind: "files"; files: RemoteFile[] };

/**
 * A GET whose answer must start within the deadline; its body then streams without one (a large
 * download takes the time it takes, the client's own idle deadline applies).
 */
export async function openDownload(http: Http, label: string, url: string, init: RequestInit = {}): Promise<Response> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(new Error(`no answer within ${http.timeoutMs} ms`)), http.timeoutMs);
  let res: Response;
  try {
    res = await http.fetch(url, { ...init, signal: abort.signal });
  } catch (err) {
    throw new DomainError("UPSTREAM_ERROR", `Could not reach ${label}: ${err instanceof Error ? err.message : String(err)}`, { upstreamStatus: 502 });
  } finally {
    clearTimeout(timer);
  }
  if (!res.ok) throw upstreamHttpError(label, res.status, await readUpstreamBody(res));
  if (!res.body) throw new DomainError("UPSTREAM_ERROR", `${label} sent no body`, { upstreamStatus: 502 });
  return new Response(idleDeadline(res.body, http.timeoutMs, label), { status: res.status, headers: res.headers });
}

/**
 * The body, failing (and letting go of the upstream) when no byte comes for `ms`: a download may
 * take as long as it needs, but a stalled one never holds the client's connection forever.
 */
export function idleDeadline(body: ReadableStream<Uint8Array>, ms: number, label: string): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const stalled = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${label} sent nothing for ${ms} ms`)), ms);
      });
      try {
        const next = await Promise.race([reader.read(), stalled]);
        if (next.done) controller.close();
        else controller.enqueue(next.value);
      } catch (err) {
        void reader.cancel(err).catch(() => {});
        controller.error(err);
      } finally {
        clearTimeout(timer);
      }
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}

export type TrainingProgress = {
  points: { step: number; trainLoss: number | null; validLoss: number | null }[];
  checkpoints: { id: string; step: number; model: string | null; trainLoss: number | null; validLoss: number | null; at: string | null }[];
};

export const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);
export const isoOf = (seconds: unknown): string | null => (typeof seconds === "number" ? new Date(seconds * 1000).toISOString() : null);

/** Supervised fine-tuning on chat lines, or DPO on preference lines (with its beta; null: the backend's default). */
export type TrainingMethod = { type: "sft" } | { type: "dpo"; beta: number | null };

/** `account`: the Fireworks account the key works in (found from the key when not given). */
export type TrainerTarget = { backend: "openai" | "together" | "fireworks"; baseUrl: string; apiKey: string; account?: string | null };
export type TrainerFactory = (target: TrainerTarget) => Trainer;

export type Http = { fetch: typeof fetch; timeoutMs: number };

export async function call(http: Http, label: string, url: string, init: RequestInit): Promise<Record<string, unknown>> {
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

export function jsonlFile(jsonl: string, name: string): Blob {
  return new File([jsonl], name, { type: "application/jsonl" });
}
