import { DomainError } from "../core/errors";
import { call, type Http, jsonlFile, openDownload, type RemoteFile, type Trainer, type TrainerJobState, type TrainerTarget } from "./trainer-http";

// Fireworks' fine-tuning (LoRA on open models) through its REST API (FIREWORKS_BASE_URL, default
// https://api.fireworks.ai): a dataset is created and its JSONL uploaded (`:upload`, multipart);
// supervised fine-tuning jobs (`supervisedFineTuningJobs`) or DPO jobs (`dpoJobs`, lossConfig DPO)
// train an output model; a finished adapter is loaded on Fireworks' serverless platform
// (`deployedModels`, serverless) and called at `<base>/inference/v1` by its model name.

const label = "Fireworks fine-tuning";

const TERMINAL_FAILED = new Set(["JOB_STATE_FAILED", "JOB_STATE_EXPIRED", "JOB_STATE_FAILED_CLEANING_UP"]);
const QUEUED = new Set(["JOB_STATE_UNSPECIFIED", "JOB_STATE_CREATING", "JOB_STATE_PENDING", "JOB_STATE_VALIDATING", "JOB_STATE_RE_QUEUEING"]);

/** A Fireworks resource id: lowercase letters, digits and dashes, at most 63, from a name. */
function resourceId(name: string): string {
  const stem = name
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 40);
  return `hone-${stem || "x"}-${crypto.randomUUID().slice(0, 8)}`;
}

/** Fireworks' hyperparameters from Hone's (FireworksHyperparameters), without Hone's own `accountId`. */
function trainingConfig(hp: Record<string, unknown>): Record<string, unknown> {
  const { accountId: _, ...rest } = hp;
  return rest;
}

export function fireworksTrainer(t: TrainerTarget, http: Http): Trainer {
  const auth = { authorization: `Bearer ${t.apiKey}` };
  const json = { ...auth, "content-type": "application/json" };
  const v1 = `${t.baseUrl}/v1`;
  let account = t.account ?? null;

  /** The account the key works in: given, or the only one the key sees. */
  async function accountName(): Promise<string> {
    if (account) return account.startsWith("accounts/") ? account : `accounts/${account}`;
    const listed = await call(http, label, `${v1}/accounts`, { headers: auth });
    const names = (Array.isArray(listed.accounts) ? (listed.accounts as { name?: unknown }[]) : [])
      .map((a) => a.name)
      .filter((n): n is string => typeof n === "string");
    if (names.length !== 1) {
      throw new DomainError(
        "VALIDATION",
        `The Fireworks key sees ${names.length} accounts${names.length ? ` (${names.join(", ")})` : ""}: name one with trainingConfig.accountId`,
        { issues: [{ message: "which Fireworks account", path: ["trainingConfig", "accountId"] }] },
      );
    }
    account = names[0]!;
    return account;
  }

  /** The serverless copy of a trained adapter: loaded if it is not yet; DEPLOYED once it answers. */
  async function serve(model: string): Promise<TrainerJobState> {
    const acct = await accountName();
    const filter = encodeURIComponent(`model="${model}"`);
    const listed = await call(http, label, `${v1}/${acct}/deployedModels?filter=${filter}`, { headers: auth });
    let copies = Array.isArray(listed.deployedModels) ? (listed.deployedModels as { state?: string; status?: { message?: string } }[]) : [];
    if (!copies.length) {
      try {
        copies = [
          await call(http, label, `${v1}/${acct}/deployedModels`, {
            method: "POST",
            headers: json,
            body: JSON.stringify({ model, serverless: true, default: true }),
          }),
        ];
      } catch (err) {
        if (err instanceof DomainError && err.code !== "UPSTREAM_TIMEOUT" && Number(err.details.upstreamStatus) < 500) {
          const why = err.message;
          return {
            status: "failed",
            modelId: null,
            error: `Trained as ${model}, but Fireworks would not serve it on serverless (${why}): load it on a dedicated deployment`,
          };
        }
        throw err;
      }
    }
    if (copies.some((c) => c.state === "DEPLOYED")) return { status: "succeeded", modelId: model, error: null };
    return { status: "running", modelId: null, error: null };
  }

  return {
    async uploadTrainingFile(jsonl, fileName) {
      const acct = await accountName();
      const id = resourceId(fileName.replace(/\.jsonl$/, ""));
      const exampleCount = jsonl.split("\n").filter((l) => l.trim()).length;
      await call(http, label, `${v1}/${acct}/datasets`, {
        method: "POST",
        headers: json,
        body: JSON.stringify({ datasetId: id, dataset: { displayName: fileName, exampleCount: String(exampleCount), userUploaded: {} } }),
      });
      const form = new FormData();
      form.append("file", jsonlFile(jsonl, fileName));
      await call(http, label, `${v1}/${acct}/datasets/${id}:upload`, { method: "POST", headers: auth, body: form });
      return `${acct}/datasets/${id}`;
    },
    async createJob({ fileId, baseModel, hyperparameters, suffix, method }) {
      const acct = await accountName();
      const outputModel = `${acct}/models/${resourceId(suffix)}`;
      const settings = { baseModel, outputModel, ...trainingConfig(hyperparameters) };
      const created =
        method?.type === "dpo"
          ? await call(http, label, `${v1}/${acct}/dpoJobs`, {
              method: "POST",
              headers: json,
              body: JSON.stringify({
                dataset: fileId,
                displayName: suffix,
                trainingConfig: settings,
                lossConfig: { method: "DPO", ...(method.beta != null ? { klBeta: method.beta } : {}) },
              }),
            })
          : await call(http, label, `${v1}/${acct}/supervisedFineTuningJobs`, {
              method: "POST",
              headers: json,
              body: JSON.stringify({ dataset: fileId, displayName: suffix, ...settings }),
            });
      if (typeof created.name !== "string") throw new DomainError("UPSTREAM_ERROR", `${label} named no job`, { upstreamStatus: 502 });
      return created.name;
    },
    async getJob(jobName) {
      const j = await call(http, label, `${v1}/${jobName}`, { headers: auth });
      const state = String(j.state ?? "JOB_STATE_UNSPECIFIED");
      const message = (j.status as { message?: string } | undefined)?.message || null;
      if (state === "JOB_STATE_COMPLETED") {
        const config = (j.trainingConfig ?? {}) as { outputModel?: unknown };
        const model = typeof j.outputModel === "string" ? j.outputModel : typeof config.outputModel === "string" ? config.outputModel : null;
        if (!model) return { status: "failed", modelId: null, error: "Fireworks finished the job but named no output model" };
        return serve(model);
      }
      if (TERMINAL_FAILED.has(state)) return { status: "failed", modelId: null, error: message ?? `Fireworks: ${state}` };
      if (state === "JOB_STATE_CANCELLED") return { status: "cancelled", modelId: null, error: message };
      return { status: QUEUED.has(state) ? "queued" : "running", modelId: null, error: null };
    },
    async cancelJob(jobName) {
      await call(http, label, `${v1}/${jobName}`, { method: "DELETE", headers: auth });
    },
    async downloadWeights({ modelId }) {
      // Signed URLs, a file each (getDownloadEndpoint); each file's size from its HEAD, read with Range.
      const got = await call(http, label, `${v1}/${modelId}:getDownloadEndpoint`, { headers: auth });
      const urls = Object.entries((got.filenameToSignedUrls ?? {}) as Record<string, unknown>).filter((e): e is [string, string] => typeof e[1] === "string");
      if (!urls.length) throw new DomainError("CONFLICT", `Fireworks offers no files to download for ${modelId}`);
      const files: RemoteFile[] = [];
      for (const [path, url] of urls.slice(0, 1_000)) {
        const head = await http.fetch(url, { method: "HEAD", signal: AbortSignal.timeout(http.timeoutMs) }).catch(() => null);
        const bytes = Number(head?.headers.get("content-length"));
        if (!head?.ok || !Number.isFinite(bytes)) throw new DomainError("UPSTREAM_ERROR", `Fireworks' file ${path} gave no size`, { upstreamStatus: 502 });
        files.push({
          path,
          bytes,
          async *read(from: number) {
            const res = await openDownload(http, label, url, from ? { headers: { range: `bytes=${from}-` } } : {});
            let skip = from > 0 && res.status !== 206 ? from : 0; // a store that ignores Range: skip what was asked past
            for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
              if (skip >= chunk.byteLength) {
                skip -= chunk.byteLength;
                continue;
              }
              yield skip ? chunk.subarray(skip) : chunk;
              skip = 0;
            }
          },
        });
      }
      return { kind: "files", files };
    },
    async getProgress() {
      // Fireworks reports a job's progress as a share done, not a loss per step: the curve stays empty.
      return { points: [], checkpoints: [] };
    },
  };
}
