// A fake Fireworks on 127.0.0.1 speaking the REST wire of its fine-tuning and serving: accounts,
// datasets (create, then `:upload` multipart), supervisedFineTuningJobs and dpoJobs (each poll
// moves a job one step: CREATING -> RUNNING -> COMPLETED; a displayName containing "fail" ends
// FAILED with a status message), deployedModels (a serverless copy, DEPLOYING then DEPLOYED at the
// next list), and chat completions at /inference/v1 for deployed models.

type Job = { name: string; kind: "sft" | "dpo"; body: Record<string, unknown>; polls: number; state: string; outputModel: string };

export type FakeFireworks = {
  url: string;
  datasets: Map<string, { body: Record<string, unknown>; file: string | null }>;
  jobs: Map<string, Job>;
  deployed: Map<string, { model: string; state: string; serverless: boolean }>;
  chats: { model: string; messages: { role: string; content: string }[] }[];
  /** Requests whose bearer key was not the fake's. */
  refused: number;
  stop(): Promise<void>;
};

const ACCOUNT = "accounts/acme";

/** The bytes of a trained model's file, as the fake's signed URLs serve them. */
export const fileOf = (modelId: string, name: string) =>
  name.endsWith(".json") ? `{"peft_type":"LORA","model":"${modelId}"}` : `weights of ${modelId} `.repeat(100);

export function startFakeFireworks(opts: { apiKey?: string } = {}): FakeFireworks {
  const apiKey = opts.apiKey ?? "fw-test-key-0001";
  const fake: FakeFireworks = { url: "", datasets: new Map(), jobs: new Map(), deployed: new Map(), chats: [], refused: 0, stop: async () => {} };
  const error = (status: number, message: string) => Response.json({ code: status, message }, { status });
  let n = 0;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const url = new URL(req.url);
      const path = decodeURIComponent(url.pathname);
      // A signed URL of a trained model's file (no key: the signature is the URL), with HEAD and Range.
      const signed = path.match(/^\/signed\/(.+)\/([^/]+)$/);
      if (signed) {
        const bytes = new TextEncoder().encode(fileOf(signed[1]!, signed[2]!));
        if (req.method === "HEAD") return new Response(null, { headers: { "content-length": String(bytes.byteLength) } });
        const from = Number(/^bytes=(\d+)-$/.exec(req.headers.get("range") ?? "")?.[1] ?? 0);
        return new Response(bytes.subarray(from), { status: from ? 206 : 200, headers: { "content-type": "application/octet-stream" } });
      }
      if (req.headers.get("authorization") !== `Bearer ${apiKey}`) {
        fake.refused++;
        return error(401, "invalid API key");
      }
      if (req.method === "GET" && path === "/v1/accounts") return Response.json({ accounts: [{ name: ACCOUNT, displayName: "Acme" }] });
      if (req.method === "POST" && path === `/v1/${ACCOUNT}/datasets`) {
        const body = (await req.json()) as { datasetId: string; dataset: Record<string, unknown> };
        fake.datasets.set(body.datasetId, { body, file: null });
        return Response.json({ name: `${ACCOUNT}/datasets/${body.datasetId}`, state: "UPLOADING", ...body.dataset });
      }
      const upload = path.match(/^\/v1\/accounts\/acme\/datasets\/([^/:]+):upload$/);
      if (req.method === "POST" && upload) {
        const dataset = fake.datasets.get(upload[1]!);
        if (!dataset) return error(404, "dataset not found");
        const file = (await req.formData()).get("file");
        if (!(file instanceof File)) return error(400, "file is required");
        dataset.file = await file.text();
        return Response.json({ id: upload[1], object: "file", bytes: file.size, filename: file.name });
      }
      const create = path.match(/^\/v1\/accounts\/acme\/(supervisedFineTuningJobs|dpoJobs)$/);
      if (req.method === "POST" && create) {
        const body = (await req.json()) as Record<string, unknown>;
        const dataset = String(body.dataset ?? "")
          .split("/")
          .at(-1)!;
        if (!fake.datasets.get(dataset)?.file) return error(400, `dataset ${body.dataset} has no uploaded file`);
        const kind = create[1] === "dpoJobs" ? "dpo" : "sft";
        const config = (kind === "dpo" ? body.trainingConfig : body) as { outputModel?: string; baseModel?: string };
        if (!config.baseModel?.startsWith("accounts/fireworks/models/")) return error(400, `unknown base model ${config.baseModel}`);
        const name = `${ACCOUNT}/${create[1]}/job-${++n}`;
        const job: Job = { name, kind, body, polls: 0, state: "JOB_STATE_CREATING", outputModel: config.outputModel ?? `${ACCOUNT}/models/out-${n}` };
        fake.jobs.set(name, job);
        return Response.json({ name, state: job.state, ...body });
      }
      const job = fake.jobs.get(path.slice("/v1/".length));
      if (job && req.method === "GET") {
        job.polls++;
        if (job.state !== "JOB_STATE_CANCELLED") {
          const failing = String(job.body.displayName ?? "").includes("fail");
          job.state = job.polls === 1 ? "JOB_STATE_RUNNING" : failing ? "JOB_STATE_FAILED" : "JOB_STATE_COMPLETED";
        }
        const status =
          job.state === "JOB_STATE_FAILED" ? { code: "INVALID_ARGUMENT", message: "the dataset has too few examples" } : { code: "OK", message: "" };
        const out =
          job.kind === "dpo" ? { trainingConfig: { ...(job.body.trainingConfig as object), outputModel: job.outputModel } } : { outputModel: job.outputModel };
        return Response.json({ ...job.body, ...out, name: job.name, state: job.state, status });
      }
      if (job && req.method === "DELETE") {
        job.state = "JOB_STATE_CANCELLED";
        return Response.json({});
      }
      if (path === `/v1/${ACCOUNT}/deployedModels` && req.method === "GET") {
        const model = /^model="(.*)"$/.exec(url.searchParams.get("filter") ?? "")?.[1];
        const copies = [...fake.deployed.entries()].filter(([, d]) => !model || d.model === model);
        for (const [, d] of copies) d.state = "DEPLOYED";
        return Response.json({ deployedModels: copies.map(([name, d]) => ({ name, ...d })) });
      }
      if (path === `/v1/${ACCOUNT}/deployedModels` && req.method === "POST") {
        const body = (await req.json()) as { model: string; serverless?: boolean };
        if (![...fake.jobs.values()].some((j) => j.outputModel === body.model && j.state === "JOB_STATE_COMPLETED"))
          return error(404, `model ${body.model} not found`);
        const name = `${ACCOUNT}/deployedModels/dm-${++n}`;
        fake.deployed.set(name, { model: body.model, state: "DEPLOYING", serverless: body.serverless === true });
        return Response.json({ name, model: body.model, state: "DEPLOYING", serverless: body.serverless === true });
      }
      const download = path.match(/^\/v1\/(accounts\/acme\/models\/[^/:]+):getDownloadEndpoint$/);
      if (req.method === "GET" && download) {
        const model = download[1]!;
        if (![...fake.jobs.values()].some((j) => j.outputModel === model && j.state === "JOB_STATE_COMPLETED")) return error(404, `model ${model} not found`);
        const id = model.split("/").at(-1)!;
        return Response.json({
          filenameToSignedUrls: Object.fromEntries(
            ["adapter_config.json", "adapter_model.safetensors"].map((f) => [f, `${fake.url}/signed/${id}/${f}?sig=abc`]),
          ),
        });
      }
      if (req.method === "POST" && path === "/inference/v1/chat/completions") {
        const body = (await req.json()) as { model: string; messages: { role: string; content: string }[] };
        if (![...fake.deployed.values()].some((d) => d.model === body.model && d.state === "DEPLOYED")) {
          return Response.json(
            { error: { object: "error", type: "invalid_request_error", message: `Model not found, inaccessible, and/or not deployed: ${body.model}` } },
            { status: 404 },
          );
        }
        fake.chats.push(body);
        const asked = body.messages.at(-1)?.content ?? "";
        return Response.json({
          id: `chatcmpl-fw-${++n}`,
          object: "chat.completion",
          created: Math.floor(Date.now() / 1000),
          model: body.model,
          choices: [{ index: 0, message: { role: "assistant", content: `fireworks: ${asked}` }, finish_reason: "stop" }],
          usage: { prompt_tokens: 9, completion_tokens: 4, total_tokens: 13 },
        });
      }
      return error(404, `no route ${req.method} ${path}`);
    },
  });
  fake.url = `http://127.0.0.1:${server.port}`;
  fake.stop = async () => {
    await server.stop(true);
  };
  return fake;
}
