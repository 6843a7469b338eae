// A fake fine-tuning backend on 127.0.0.1 speaking OpenAI's files + fine_tuning/jobs protocol and
// Together's files/upload + fine-tunes protocol, plus chat completions for the trained models.
// Each poll of a job moves it one step: queued -> running -> succeeded. A suffix (the model slug)
// containing "fail" ends in failure; one containing "stall" stays running; one containing "quick"
// goes from queued to succeeded in one poll (it ran between two polls).

import type { SentMessage, SentTool } from "./fake-upstreams";

/** A fine-tuning job request as the fake received it (OpenAI's or Together's): the members read, the rest unknown. */
export type JobRequest = {
  model: string;
  suffix?: string;
  training_file: string;
  /** OpenAI's method: `{ type: "supervised" | "dpo", supervised?: {...}, dpo?: {...} }`. */
  method?: {
    type?: string;
    supervised?: { hyperparameters?: Record<string, unknown> };
    dpo?: { hyperparameters?: Record<string, unknown> };
    [key: string]: unknown;
  };
  /** Together's method: `{ method: "sft" | "dpo", ... }`. */
  training_method?: { method?: string; [key: string]: unknown };
  [key: string]: unknown;
};
/** A chat completion request to a trained model, as the fake received it. */
export type TrainerChat = { model: string; messages: SentMessage[]; tools?: SentTool[]; stream?: boolean; [key: string]: unknown };

type Job = { id: string; api: "openai" | "together"; model: string; suffix: string; fileId: string; polls: number; cancelled: boolean; body: JobRequest };

export type FakeTrainer = {
  url: string;
  files: Map<string, string>;
  jobs: Map<string, Job>;
  cancelled: string[];
  chats: TrainerChat[];
  stop(): Promise<void>;
};

export function startFakeTrainer(opts: { apiKey?: string } = {}): FakeTrainer {
  const fake: FakeTrainer = { url: "", files: new Map(), jobs: new Map(), cancelled: [], chats: [], stop: async () => {} };
  let n = 0;
  const openAiJob = (j: Job) => {
    const steps = j.suffix.includes("fail")
      ? ["running", "failed"]
      : j.suffix.includes("stall")
        ? ["running"]
        : j.suffix.includes("quick")
          ? ["queued", "succeeded"]
          : ["queued", "running", "succeeded"];
    const status = j.cancelled ? "cancelled" : steps[Math.min(j.polls, steps.length - 1)]!;
    return {
      id: j.id,
      object: "fine_tuning.job",
      model: j.model,
      status,
      training_file: j.fileId,
      fine_tuned_model: status === "succeeded" ? `ft:${j.model}:hone:${j.suffix}:x1` : null,
      error: status === "failed" ? { code: "invalid_training_file", message: "Training file has too few examples", param: null } : null,
    };
  };
  const togetherJob = (j: Job) => {
    const steps = j.suffix.includes("fail")
      ? ["running", "error"]
      : j.suffix.includes("stall")
        ? ["running"]
        : j.suffix.includes("quick")
          ? ["pending", "completed"]
          : ["pending", "running", "completed"];
    const status = j.cancelled ? "cancelled" : steps[Math.min(j.polls, steps.length - 1)]!;
    return {
      id: j.id,
      status,
      model: j.model,
      output_name: status === "completed" ? `acct/${j.model.split("/").at(-1)}-${j.suffix}` : null,
      events: status === "error" ? [{ level: "error", message: "CUDA out of memory" }] : [],
    };
  };
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const url = new URL(req.url);
      const path = url.pathname;
      if (opts.apiKey && req.headers.get("authorization") !== `Bearer ${opts.apiKey}`) {
        return Response.json({ error: { message: "bad key", type: "invalid_request_error", code: "invalid_api_key" } }, { status: 401 });
      }
      // Files
      if (req.method === "POST" && (path === "/v1/files" || path === "/v1/files/upload")) {
        const form = await req.formData();
        const file = form.get("file") as File;
        const id = `file-${++n}`;
        fake.files.set(id, await file.text());
        return Response.json({ id, object: "file", purpose: form.get("purpose"), filename: file.name });
      }
      // Jobs
      if (req.method === "POST" && (path === "/v1/fine_tuning/jobs" || path === "/v1/fine-tunes")) {
        const body = (await req.json()) as JobRequest;
        const api = path === "/v1/fine-tunes" ? "together" : "openai";
        const job: Job = {
          id: `${api === "openai" ? "ftjob" : "ft"}-${++n}`,
          api,
          model: body.model,
          suffix: body.suffix ?? "",
          fileId: body.training_file,
          polls: 0,
          cancelled: false,
          body,
        };
        if (!fake.files.has(job.fileId)) return Response.json({ error: { message: "no such file" } }, { status: 400 });
        // The file is checked line by line against the method's format, as the backends do.
        const dpo = api === "openai" ? body.method?.type === "dpo" : body.training_method?.method === "dpo";
        const problem = checkTrainingFile(fake.files.get(job.fileId)!, dpo ? "dpo" : "sft");
        if (problem) return Response.json({ error: { message: problem, type: "invalid_request_error", code: "invalid_training_file" } }, { status: 400 });
        fake.jobs.set(job.id, job);
        return Response.json(api === "openai" ? openAiJob(job) : togetherJob(job));
      }
      // Progress: 5 steps a poll, the loss falling from 2.0; validation every 5th step; a checkpoint every 10.
      const ev = /^\/v1\/(fine_tuning\/jobs|fine-tunes)\/([^/]+)\/(events|checkpoints)$/.exec(path);
      if (ev && req.method === "GET") {
        const job = fake.jobs.get(ev[2]!);
        if (!job) return Response.json({ error: { message: "no such job" } }, { status: 404 });
        const steps = Array.from({ length: Math.min(job.polls, 4) * 5 }, (_, i) => i + 1);
        const loss = (s: number) => Math.round((2 / Math.sqrt(s)) * 1000) / 1000;
        const valid = (s: number) => (s % 5 === 0 ? Math.round((2.2 / Math.sqrt(s)) * 1000) / 1000 : null);
        if (ev[3] === "checkpoints") {
          const data = steps
            .filter((s) => s % 10 === 0)
            .map((s) => ({
              object: "fine_tuning.job.checkpoint",
              id: `ftckpt-${job.id}-${s}`,
              step_number: s,
              fine_tuned_model_checkpoint: `ft:${job.model}:hone:${job.suffix}:ckpt-step-${s}`,
              metrics: { step: s, train_loss: loss(s), valid_loss: valid(s) },
              created_at: 1_700_000_000 + s,
            }));
          return Response.json({ object: "list", data, has_more: false });
        }
        const data =
          job.api === "openai"
            ? steps.map((s) => ({
                object: "fine_tuning.job.event",
                type: "metrics",
                level: "info",
                message: `Step ${s}`,
                data: { step: s, train_loss: loss(s), ...(valid(s) !== null ? { valid_loss: valid(s) } : {}) },
              }))
            : steps.map((s) => ({
                object: "fine-tune-event",
                type: "TRAINING_PROGRESS",
                step: s,
                message: `Step ${s}: train_loss: ${loss(s)}${valid(s) !== null ? `, eval_loss: ${valid(s)}` : ""}`,
                ...(s % 10 === 0 ? { checkpoint_path: `acct/ckpt-${s}` } : {}),
                created_at: new Date(1_700_000_000_000 + s * 1000).toISOString(),
              }));
        return Response.json({ object: "list", data });
      }
      const m = /^\/v1\/(fine_tuning\/jobs|fine-tunes)\/([^/]+)(\/cancel)?$/.exec(path);
      if (m) {
        const job = fake.jobs.get(m[2]!);
        if (!job) return Response.json({ error: { message: "no such job" } }, { status: 404 });
        if (m[3]) {
          job.cancelled = true;
          fake.cancelled.push(job.id);
        } else if (req.method === "GET") {
          job.polls++;
        }
        return Response.json(job.api === "openai" ? openAiJob(job) : togetherJob(job));
      }
      // Together's download of a finished job's adapter: one compressed archive (here: bytes naming the job).
      if (req.method === "GET" && path === "/v1/finetune/download") {
        const job = fake.jobs.get(url.searchParams.get("ft_id") ?? "");
        if (job?.api !== "together") return Response.json({ error: { message: "no such fine-tune" } }, { status: 404 });
        if (url.searchParams.get("checkpoint") !== "adapter")
          return Response.json({ error: { message: "checkpoint must be merged or adapter" } }, { status: 400 });
        return new Response(`zstd archive of the adapter of ${job.id}`, { headers: { "content-type": "application/octet-stream" } });
      }
      // Inference for trained models
      if (req.method === "POST" && path === "/v1/chat/completions") {
        const body = (await req.json()) as TrainerChat;
        fake.chats.push(body);
        const last = String([...body.messages].reverse().find((x) => x.role === "user")?.content ?? "");
        if (body.tools?.[0]?.function?.name === "record_verdict") {
          // The judge: an output passes when it is "tuned" or "good".
          const pass = /(tuned|good):/.test(last.split("Output:").at(-1) ?? "");
          return Response.json({
            id: `chatcmpl-${++n}`,
            object: "chat.completion",
            created: 1_700_000_000,
            model: body.model,
            choices: [
              {
                index: 0,
                finish_reason: "tool_calls",
                message: {
                  role: "assistant",
                  content: null,
                  tool_calls: [
                    {
                      id: "v",
                      type: "function",
                      function: {
                        name: "record_verdict",
                        arguments: JSON.stringify({ explanation: pass ? "fine" : "not good", judgement: pass ? "PASS" : "FAIL" }),
                      },
                    },
                  ],
                },
              },
            ],
            usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
          });
        }
        // Trained models answer "tuned", a model named *relabel* answers "good", others echo.
        const prefix =
          String(body.model).startsWith("ft:") || String(body.model).startsWith("acct/") ? "tuned" : String(body.model).includes("relabel") ? "good" : "echo";
        const completion = {
          id: `chatcmpl-${++n}`,
          object: "chat.completion",
          created: 1_700_000_000,
          model: body.model,
          choices: [{ index: 0, message: { role: "assistant", content: `${prefix}: ${last}` }, finish_reason: "stop", logprobs: null }],
          usage: { prompt_tokens: 1000, completion_tokens: 500, total_tokens: 1500 },
        };
        if (!body.stream) return Response.json(completion);
        const chunk = (delta: object, finish: string | null, extra: object = {}) =>
          `data: ${JSON.stringify({ id: completion.id, object: "chat.completion.chunk", created: completion.created, model: body.model, choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`;
        const text = [
          chunk({ role: "assistant", content: "" }, null),
          chunk({ content: `${prefix}: ${last}` }, null),
          chunk({}, "stop"),
          `data: ${JSON.stringify({ id: completion.id, object: "chat.completion.chunk", created: completion.created, model: body.model, choices: [], usage: completion.usage })}\n\n`,
          "data: [DONE]\n\n",
        ].join("");
        return new Response(text, { headers: { "content-type": "text/event-stream" } });
      }
      return Response.json({ error: { message: `unknown route ${req.method} ${path}` } }, { status: 404 });
    },
  });
  fake.url = `http://127.0.0.1:${server.port}`;
  fake.stop = () => server.stop(true);
  return fake;
}

const isAssistant = (m: unknown) =>
  typeof m === "object" && m !== null && (m as { role?: unknown }).role === "assistant" && ("content" in m || "tool_calls" in m);

/** One line of a training file, as far as the checks read it. */
type TrainingRow = { messages?: unknown; input?: { messages?: unknown } | null; preferred_output?: unknown; non_preferred_output?: unknown };

/**
 * What a backend would refuse in a training file: each line must be JSON of the method's format.
 * sft: {messages: [...], tools?} ending in an assistant message; dpo (OpenAI's and Together's
 * preference format): {input: {messages: [...]}, preferred_output: [assistant], non_preferred_output:
 * [assistant]} with the two outputs different. Null: the file is fine.
 */
export function checkTrainingFile(text: string, method: "sft" | "dpo"): string | null {
  const lines = text.split("\n").filter((l) => l.trim() !== "");
  if (!lines.length) return "the training file is empty";
  for (const [i, line] of lines.entries()) {
    let row: TrainingRow;
    try {
      row = JSON.parse(line) as TrainingRow;
    } catch {
      return `line ${i + 1}: not JSON`;
    }
    if (method === "sft") {
      if (!Array.isArray(row.messages) || !isAssistant(row.messages.at(-1))) return `line ${i + 1}: expected {messages} ending in an assistant message`;
      if ("preferred_output" in row) return `line ${i + 1}: a preference line in a supervised job`;
      continue;
    }
    if (!row.input || !Array.isArray(row.input.messages) || row.input.messages.length === 0) return `line ${i + 1}: input.messages is missing`;
    if (isAssistant(row.input.messages.at(-1))) return `line ${i + 1}: input.messages must end before the answer`;
    for (const k of ["preferred_output", "non_preferred_output"] as const) {
      const out = row[k];
      if (!Array.isArray(out) || out.length !== 1 || !isAssistant(out[0])) return `line ${i + 1}: ${k} must hold exactly one assistant message`;
    }
    if (JSON.stringify(row.preferred_output) === JSON.stringify(row.non_preferred_output))
      return `line ${i + 1}: the preferred and non-preferred outputs are the same`;
    if (Object.keys(row).some((k) => !["input", "preferred_output", "non_preferred_output"].includes(k))) return `line ${i + 1}: unexpected members`;
  }
  return null;
}
