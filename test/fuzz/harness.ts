import type { Pools } from "./from-schema";
import { excerpt } from "./hostile";
import type { FuzzRequest } from "./targets";

// Plumbing shared by the bounded fuzz test and bench/fuzz.ts: a fake upstream that always
// answers well (so any 5xx is Hone's own), seeding two projects over HTTP as a client would,
// sending a FuzzRequest, judging its response, and checking that nothing seeded was lost.

export const ADMIN_TOKEN = "fuzz-admin-token-0123456789abcdef";

/** Environment for a Hone under fuzz: every upstream is the fake, private upstreams allowed (it is on loopback). */
export function fuzzEnv(upstreamUrl: string): Record<string, string> {
  return {
    OPENAI_BASE_URL: `${upstreamUrl}/v1`,
    ANTHROPIC_BASE_URL: upstreamUrl,
    GEMINI_BASE_URL: `${upstreamUrl}/gemini`,
    TOGETHER_BASE_URL: `${upstreamUrl}/together`,
    HONE_ADMIN_TOKEN: ADMIN_TOKEN,
    HONE_TESTING_ROUTES: "true",
    HONE_ALLOW_PRIVATE_UPSTREAMS: "true",
    HONE_UPSTREAM_TIMEOUT_MS: "10000",
    HONE_JUDGE_TIMEOUT_MS: "10000",
  };
}

// ------------------------------------------------------------------------------- fake upstream

const completion = (model: string, content: string) => ({
  id: `chatcmpl-fuzz${Math.random().toString(36).slice(2, 10)}`,
  object: "chat.completion",
  created: 1_700_000_000,
  model,
  choices: [{ index: 0, message: { role: "assistant", content, refusal: null }, logprobs: null, finish_reason: "stop" }],
  usage: { prompt_tokens: 12, completion_tokens: 4, total_tokens: 16 },
});
const verdict = (model: string) => ({
  id: "chatcmpl-judge",
  object: "chat.completion",
  created: 1_700_000_000,
  model,
  choices: [
    {
      index: 0,
      finish_reason: "tool_calls",
      message: {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "v", type: "function", function: { name: "record_verdict", arguments: '{"explanation":"ok","judgement":"PASS"}' } }],
      },
    },
  ],
  usage: { prompt_tokens: 50, completion_tokens: 10, total_tokens: 60 },
});

function sse(lines: string[]): Response {
  return new Response(lines.join(""), { headers: { "content-type": "text/event-stream" } });
}

/** An upstream that answers every chat call well, in OpenAI's and Anthropic's wire formats, whatever it is sent. */
export function startHealthyUpstream(): { url: string; requests: number; stop(): Promise<void> } {
  const state = { url: "", requests: 0, stop: async () => {} };
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    idleTimeout: 0,
    async fetch(req) {
      state.requests++;
      const path = new URL(req.url).pathname;
      let parsed: unknown = {};
      try {
        parsed = JSON.parse(await req.text());
      } catch {}
      // Whatever the fuzzer sent: the members read here may hold anything.
      const body = (typeof parsed === "object" && parsed !== null ? parsed : {}) as {
        model?: unknown;
        n?: unknown;
        tools?: unknown;
        stream?: unknown;
        stream_options?: { include_usage?: unknown } | null;
      };
      const model = typeof body.model === "string" ? body.model : "unknown";
      const n = Math.max(1, Math.min(Number.isInteger(body.n) ? (body.n as number) : 1, 16));
      if (req.method === "POST" && path.endsWith("/chat/completions")) {
        const isJudge = JSON.stringify(body.tools ?? null).includes("record_verdict");
        const c = isJudge ? verdict(model) : completion(model, "fuzz reply");
        c.choices = Array.from({ length: n }, (_, index) => ({ ...c.choices[0]!, index })) as never;
        if (!body.stream) return Response.json(c);
        const chunk = (delta: object, finish: string | null, index = 0) =>
          `data: ${JSON.stringify({ id: c.id, object: "chat.completion.chunk", created: c.created, model, choices: [{ index, delta, finish_reason: finish }] })}\n\n`;
        const lines: string[] = [];
        for (let i = 0; i < n; i++) {
          lines.push(chunk({ role: "assistant", content: "" }, null, i));
          if (isJudge)
            lines.push(
              chunk(
                {
                  tool_calls: [
                    { index: 0, id: "v", type: "function", function: { name: "record_verdict", arguments: '{"explanation":"ok","judgement":"PASS"}' } },
                  ],
                },
                null,
                i,
              ),
            );
          else lines.push(chunk({ content: "fuzz reply" }, null, i));
          lines.push(chunk({}, isJudge ? "tool_calls" : "stop", i));
        }
        if (body.stream_options?.include_usage)
          lines.push(`data: ${JSON.stringify({ id: c.id, object: "chat.completion.chunk", created: c.created, model, choices: [], usage: c.usage })}\n\n`);
        lines.push("data: [DONE]\n\n");
        return sse(lines);
      }
      if (req.method === "POST" && path === "/v1/messages") {
        const id = "msg_fuzz";
        const usage = { input_tokens: 12, output_tokens: 4 };
        if (!body.stream) {
          return Response.json({
            id,
            type: "message",
            role: "assistant",
            model,
            content: [{ type: "text", text: "fuzz reply" }],
            stop_reason: "end_turn",
            stop_sequence: null,
            usage,
          });
        }
        const ev = (type: string, data: object) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
        return sse([
          ev("message_start", { message: { id, type: "message", role: "assistant", model, content: [], stop_reason: null, stop_sequence: null, usage } }),
          ev("content_block_start", { index: 0, content_block: { type: "text", text: "" } }),
          ev("content_block_delta", { index: 0, delta: { type: "text_delta", text: "fuzz reply" } }),
          ev("content_block_stop", { index: 0 }),
          ev("message_delta", { delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 4 } }),
          ev("message_stop", {}),
        ]);
      }
      // Trainer endpoints (files, fine-tuning jobs): a well-formed refusal, as a provider would give.
      return Response.json({ error: { message: `Unknown path ${path}`, type: "invalid_request_error" } }, { status: 404 });
    },
  });
  state.url = `http://127.0.0.1:${server.port}`;
  state.stop = async () => server.stop(true);
  return state;
}

// ---------------------------------------------------------------------------------------- client

export type Keys = { project: string; victim: string };

function authorization(req: FuzzRequest, keys: Keys): string | undefined {
  switch (req.auth) {
    case "project":
      return `Bearer ${keys.project}`;
    case "lowercase":
      return `bearer  ${keys.project}`;
    case "admin":
      return `Bearer ${ADMIN_TOKEN}`;
    case "bogus":
      return "Bearer hone_sk_doesnotexistdoesnotexist00";
    case "malformed":
      return `Bearer hone_sk_${"a".repeat(9_000)}\u00ff`;
    case "none":
      return undefined;
  }
}

export type Outcome = { status: number; text: string; ms: number; requestId: string | null; contentType: string } | { error: string; ms: number };

export async function send(baseUrl: string, req: FuzzRequest, keys: Keys, timeoutMs = 30_000): Promise<Outcome> {
  const headers: Record<string, string> = { ...req.headers };
  const auth = authorization(req, keys);
  if (auth) headers.authorization = auth;
  const started = performance.now();
  try {
    const res = await fetch(baseUrl + req.path, { method: req.method, headers, body: req.body, signal: AbortSignal.timeout(timeoutMs) });
    const text = await res.text();
    return {
      status: res.status,
      text,
      ms: performance.now() - started,
      requestId: res.headers.get("x-request-id"),
      contentType: res.headers.get("content-type") ?? "",
    };
  } catch (err) {
    return { error: err instanceof Error ? `${err.name}: ${err.message}` : String(err), ms: performance.now() - started };
  }
}

/** Whether a request could not even be built by the client (not a server failure). */
export function clientRefused(o: Outcome): boolean {
  return "error" in o && /TypeError|invalid header|Header/i.test(o.error) && !/timed? ?out|abort|ECONN|socket/i.test(o.error);
}

/** A REST error body as far as the check reads it; any member may be missing or odd. */
type ErrorLike = {
  type?: unknown;
  message?: unknown;
  code?: unknown;
  issues?: unknown;
  error?: { type?: unknown; message?: unknown } | null;
} | null;

/**
 * What is wrong with a response, or null: no 5xx ever; REST errors in the {message, code, issues}
 * envelope; GraphQL errors with an extensions.code that is not INTERNAL; tRPC errors whose
 * data.code is not INTERNAL.
 */
export function violation(req: FuzzRequest, o: Outcome): string | null {
  if ("error" in o) return clientRefused(o) ? null : `no response: ${o.error}`;
  if (o.status >= 500) return `status ${o.status}: ${excerpt(o.text, 300)}`;
  // Bun's HTTP server answers these itself, before any application code sees the request.
  if (o.status === 431 || (o.status === 414 && !o.text)) return null;
  const path = req.path.split("?")[0]!;
  // Yoga refuses unknown content types and methods with an empty body; nothing to map there.
  if (path === "/graphql" && (o.status === 415 || o.status === 405) && !o.text) return null;
  if (path === "/graphql") return graphqlViolation(o.text);
  if (path.startsWith("/trpc")) return trpcViolation(o.text);
  if (o.status >= 400 && req.method !== "HEAD") {
    let body: ErrorLike;
    try {
      body = JSON.parse(o.text) as ErrorLike;
    } catch {
      return `status ${o.status} without a JSON body: ${excerpt(o.text, 200)}`;
    }
    // The Anthropic-protocol routes answer in Anthropic's own error shape.
    if (path.startsWith("/api/v1/messages")) {
      const e = body?.error;
      if (body?.type !== "error" || typeof e?.type !== "string" || typeof e?.message !== "string" || !e.message) {
        return `status ${o.status} outside Anthropic's error shape: ${excerpt(o.text, 300)}`;
      }
      return e.type === "api_error" ? `status ${o.status} with type api_error` : null;
    }
    if (typeof body?.message !== "string" || typeof body?.code !== "string" || !Array.isArray(body?.issues)) {
      return `status ${o.status} outside the error envelope: ${excerpt(o.text, 300)}`;
    }
    if (body.code === "INTERNAL") return `status ${o.status} with code INTERNAL`;
  }
  return null;
}

/** A GraphQL result (or one of a batch) as far as the check reads it; any member may be missing or odd. */
type GraphqlResultLike = { errors?: ({ message?: unknown; extensions?: { code?: unknown } | null } | null)[] | null } | null;

function graphqlViolation(text: string): string | null {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return text.startsWith("<") ? null : `GraphQL answer is not JSON: ${excerpt(text, 200)}`;
  }
  for (const result of (Array.isArray(body) ? body : [body]) as GraphqlResultLike[]) {
    for (const e of result?.errors ?? []) {
      const code = e?.extensions?.code;
      if (typeof code !== "string") return `GraphQL error without extensions.code: ${excerpt(e, 300)}`;
      if (code === "INTERNAL" || code === "INTERNAL_SERVER_ERROR") return `GraphQL error ${code}: ${excerpt(e?.message, 200)}`;
    }
  }
  return null;
}

function trpcViolation(text: string): string | null {
  // Streamed batches (trpc-accept: application/jsonl) are one JSON value per line.
  const values: unknown[] = [];
  try {
    values.push(JSON.parse(text));
  } catch {
    for (const line of text.split("\n")) {
      if (!line.trim()) continue;
      try {
        values.push(JSON.parse(line));
      } catch {
        return `tRPC answer is not JSON: ${excerpt(text, 200)}`;
      }
    }
  }
  const stack = [...values];
  let seen = 0;
  while (stack.length && seen++ < 10_000) {
    const v = stack.pop();
    if (!v || typeof v !== "object") continue;
    const e = (v as { error?: unknown }).error as { code?: unknown; message?: unknown; data?: { code?: unknown } | null } | null | undefined;
    if (e && typeof e === "object") {
      if (e?.data?.code === "INTERNAL" || e?.code === -32603 || e?.data?.code === "INTERNAL_SERVER_ERROR")
        return `tRPC error INTERNAL: ${excerpt(e?.message, 200)}`;
    }
    if (Array.isArray(v)) stack.push(...v);
    else if (!("result" in v)) stack.push(...Object.values(v as object));
  }
  return null;
}

// ----------------------------------------------------------------------------------------- seed

/** A REST call that must succeed: its JSON body (null when empty), as the caller types it. */
async function call<T = unknown>(baseUrl: string, key: string, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(baseUrl + path, {
    method,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 400) throw new Error(`${method} ${path} -> ${res.status}: ${excerpt(text, 500)}`);
  return (text ? JSON.parse(text) : null) as T;
}

/** A GraphQL call that must succeed: its data, as the caller types it. */
export async function gql<T = unknown>(baseUrl: string, key: string, query: string, variables: Record<string, unknown> = {}): Promise<T> {
  const body = await call<{ data: T; errors?: unknown }>(baseUrl, key, "POST", "/graphql", { query, variables });
  if (body.errors) throw new Error(`GraphQL ${excerpt(query, 80)}: ${excerpt(body.errors, 500)}`);
  return body.data;
}

export async function createProjectAsAdmin(baseUrl: string, name: string): Promise<string> {
  const data = await gql<{ createProject: { apiKey: string } }>(baseUrl, ADMIN_TOKEN, "mutation ($n: String!) { createProject(name: $n) { apiKey } }", {
    n: name,
  });
  return data.createProject.apiKey;
}

/** What one seeded project holds, by id: the rows the fuzzer aims at, and one dataset it is never told about. */
export type Seeded = {
  datasetId: string;
  /** Never put in the pools: nothing may change it. */
  keepDatasetId: string;
  entryIds: string[];
  logIds: string[];
  completionIds: string[];
  criterionId: string;
  alignmentRowIds: string[];
  evaluationId: string | null;
  taskId: string | null;
  modelSlug: string | null;
};

/** A connection's ids, as the seeding queries read them. */
type Ids = { edges: { node: { id: string } }[] };

const entry = (i: number) => ({
  messages: [
    { role: "user", content: `question ${i}` },
    { role: "assistant", content: `answer ${i}` },
  ],
  metadata: { i: String(i) },
});

export async function seedProject(baseUrl: string, key: string, upstreamUrl: string, label: string): Promise<Seeded> {
  for (const provider of ["openai", "anthropic", "gemini", "together"]) {
    await gql(baseUrl, key, "mutation ($i: SetProviderKeyInput!) { setProviderKey(input: $i) { last4 } }", { i: { provider, apiKey: `sk-fuzz-${provider}` } });
  }
  await gql(baseUrl, key, "mutation ($i: CreateCustomProviderInput!) { createCustomProvider(input: $i) { id } }", {
    i: { slug: "fuzzprov", kind: "openai", baseUrl: `${upstreamUrl}/v1`, apiKey: "sk-fuzz-custom" },
  });
  const ds = await call<{ id: string }>(baseUrl, key, "POST", "/api/v1/datasets", { name: `${label} target` });
  await call(baseUrl, key, "POST", `/api/v1/datasets/${ds.id}/entries`, { entries: Array.from({ length: 12 }, (_, i) => entry(i)) });
  const keep = await call<{ id: string }>(baseUrl, key, "POST", "/api/v1/datasets", { name: `${label} keep` });
  await call(baseUrl, key, "POST", `/api/v1/datasets/${keep.id}/entries`, { entries: Array.from({ length: 5 }, (_, i) => entry(100 + i)) });
  const completionIds: string[] = [];
  for (let i = 0; i < 5; i++) {
    const id = `chatcmpl-${label}-${i}`;
    completionIds.push(id);
    await call(baseUrl, key, "POST", "/api/v1/report", {
      requestedAt: 1_700_000_000_000 + i,
      receivedAt: 1_700_000_001_000 + i,
      reqPayload: { model: "gpt-4o-mini", messages: [{ role: "user", content: `hi ${i}` }] },
      respPayload: { ...completion("gpt-4o-mini", `hello ${i}`), id },
      statusCode: 200,
      tags: { seed: label },
    });
  }
  await call(baseUrl, key, "POST", "/api/v1/chat/completions", { model: "gpt-4o-mini", messages: [{ role: "user", content: "seed call" }] });
  const crit = await gql<{ createCriterion: { id: string } }>(baseUrl, key, "mutation ($i: CreateCriterionInput!) { createCriterion(input: $i) { id } }", {
    i: { name: `${label} crit`, judgeModel: "gpt-4o-mini", prompt: "Is {{output}} a good answer to {{messages}}?" },
  });
  const criterionId: string = crit.createCriterion.id;
  const jsonl = [0, 1, 2].map((i) => JSON.stringify({ ...entry(i), judgement: i % 2 ? "FAIL" : "PASS" })).join("\n");
  await gql(baseUrl, key, "mutation ($i: ImportAlignmentSetInput!) { importAlignmentSet(input: $i) { rowsImported } }", { i: { criterionId, jsonl } });
  const rows = await gql<{ criterion: { alignmentRows: { id: string }[] } }>(baseUrl, key, "query ($id: ID!) { criterion(id: $id) { alignmentRows { id } } }", {
    id: criterionId,
  });
  const logs = await gql<{ logs: Ids }>(baseUrl, key, "{ logs(first: 50) { edges { node { id } } } }");
  const entries = await gql<{ dataset: { entries: Ids } }>(
    baseUrl,
    key,
    "query ($id: ID!) { dataset(id: $id) { entries(first: 50) { edges { node { id } } } } }",
    { id: ds.id },
  );
  // The rest are optional: their absence only narrows what the fuzzer reaches.
  const optional = async <T>(f: () => Promise<T>): Promise<T | null> => {
    try {
      return await f();
    } catch {
      return null;
    }
  };
  const evaluation = await optional(() =>
    gql<{ createEvaluation: { id: string } }>(baseUrl, key, "mutation ($i: CreateEvaluationInput!) { createEvaluation(input: $i) { id } }", {
      i: { datasetId: ds.id, models: ["dataset", "gpt-4o-mini"], criterionIds: [criterionId] },
    }),
  );
  const task = await optional(() =>
    gql<{ judgeDatasetEntries: { id: string } }>(baseUrl, key, "mutation ($i: JudgeDatasetEntriesInput!) { judgeDatasetEntries(input: $i) { id } }", {
      i: { datasetId: ds.id, criterionId },
    }),
  );
  const model = await optional(() =>
    gql<{ createModel: { slug: string } }>(baseUrl, key, "mutation ($i: CreateModelInput!) { createModel(input: $i) { slug } }", {
      i: { datasetId: ds.id, slug: `${label}-model`, trainingConfig: { provider: "openai", baseModel: "gpt-4o-mini-2024-07-18" } },
    }),
  );
  return {
    datasetId: ds.id,
    keepDatasetId: keep.id,
    entryIds: entries.dataset.entries.edges.map((e) => e.node.id),
    logIds: logs.logs.edges.map((e) => e.node.id),
    completionIds,
    criterionId,
    alignmentRowIds: rows.criterion.alignmentRows.map((r) => r.id),
    evaluationId: evaluation?.createEvaluation.id ?? null,
    taskId: task?.judgeDatasetEntries.id ?? null,
    modelSlug: model?.createModel.slug ?? null,
  };
}

/** Pools for the fuzzed project: its own rows, and the victim's (which must stay out of reach). */
export function poolsOf(own: Seeded, victim: Seeded, upstreamUrl: string): Pools {
  const both = <T>(f: (s: Seeded) => T[]) => [...f(own), ...f(victim).slice(0, 2)];
  return {
    datasetIds: both((s) => [s.datasetId]),
    entryIds: both((s) => s.entryIds),
    logIds: both((s) => s.logIds),
    completionIds: both((s) => s.completionIds),
    criterionIds: both((s) => [s.criterionId]),
    alignmentRowIds: both((s) => s.alignmentRowIds),
    modelSlugs: both((s) => (s.modelSlug ? [s.modelSlug] : [])),
    evaluationIds: both((s) => (s.evaluationId ? [s.evaluationId] : [])),
    taskIds: both((s) => (s.taskId ? [s.taskId] : [])),
    customProviderSlugs: ["fuzzprov"],
    models: [
      "gpt-4o-mini",
      "openai:gpt-4o-mini",
      "anthropic:claude-3-5-haiku-latest",
      "gemini:gemini-2.0-flash",
      "hone:fuzzprov/some-model",
      "openpipe:fuzzprov/m",
      "ft:gpt-4o-mini:org::x",
    ],
    upstreamUrl,
  };
}

// --------------------------------------------------------------------------------------- checks

/** The durable state of a project that the fuzzer must not change (for the victim: all of it). */
export async function snapshot(baseUrl: string, key: string, seeded: Seeded, whole: boolean): Promise<unknown> {
  const keep = await gql(
    baseUrl,
    key,
    "query ($id: ID!) { dataset(id: $id) { id name entryCount entries(first: 50) { edges { node { id messages metadata split } } } } }",
    { id: seeded.keepDatasetId },
  );
  const logs: (Record<string, unknown> | null)[] = [];
  for (const id of seeded.logIds) {
    logs.push(
      (
        await gql<{ log: Record<string, unknown> | null }>(
          baseUrl,
          key,
          "query ($id: ID!) { log(id: $id) { id model completionId statusCode metadata reqPayload respPayload } }",
          { id },
        )
      ).log,
    );
  }
  const providers = await gql<{ customProviders: { slug: string; baseUrl: string; kind: string }[] }>(
    baseUrl,
    key,
    "{ customProviders { slug baseUrl kind } }",
  );
  if (!whole) {
    // The fuzzed project's own log metadata may change: update-metadata with empty filters matches every log.
    const bodies = logs.map((l) => ({ ...l, metadata: undefined }));
    return { keep, logs: bodies, providers: providers.customProviders.filter((p) => p.slug === "fuzzprov") };
  }
  const all = await gql(
    baseUrl,
    key,
    "{ datasets { id name entryCount } criteria { id name latestVersion versions { version prompt judgeModel } alignmentRows { id judgement } } providerKeys { provider last4 } models { slug baseModel } }",
  );
  const target = await gql(baseUrl, key, "query ($id: ID!) { dataset(id: $id) { entries(first: 50) { edges { node { id messages metadata } } } } }", {
    id: seeded.datasetId,
  });
  return { keep, logs, providers, all, target };
}

type LogCursorPage = { logs: { edges: { cursor: string }[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } } };

/** How many logs a project has (up to 5,000: counts only grow, so a bound suffices). */
export async function logCount(baseUrl: string, key: string): Promise<number> {
  let n = 0;
  let after: string | null = null;
  for (let page = 0; page < 25; page++) {
    const data: LogCursorPage = await gql<LogCursorPage>(
      baseUrl,
      key,
      "query ($after: String) { logs(first: 200, after: $after) { edges { cursor } pageInfo { hasNextPage endCursor } } }",
      { after },
    );
    n += data.logs.edges.length;
    if (!data.logs.pageInfo.hasNextPage) break;
    after = data.logs.pageInfo.endCursor;
  }
  return n;
}

/** Time for /health to answer (Infinity when it does not within the timeout). */
export async function healthMs(baseUrl: string, timeoutMs = 5_000): Promise<number> {
  const started = performance.now();
  try {
    const res = await fetch(`${baseUrl}/health`, { signal: AbortSignal.timeout(timeoutMs) });
    await res.text();
    return res.ok ? performance.now() - started : Infinity;
  } catch {
    return Infinity;
  }
}
