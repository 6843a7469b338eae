import { createServer, type IncomingMessage, type ServerResponse } from "node:http";

// A fake OpenAI-compatible upstream that fails on demand, for routing's chaos tests: each request
// is answered as `decide()` says. node:http rather than Bun.serve, so a connection can be reset
// before any header (req.socket.destroy) or in the middle of a stream (res.destroy).
//   ok                 a chat completion (or its stream): "<name>: <last user text>"
//   400                OpenAI's error body with HTTP 400 (the request's fault)
//   500                OpenAI's error body with HTTP 500
//   429                HTTP 429 with `Retry-After: <retryAfter>` (seconds)
//   timeout            no answer until the client gives up
//   reset              the connection closed before any header
//   reset-mid-stream   a stream's first chunk, then the connection closed (non-streamed: as reset)

export type ChaosMode = "ok" | "400" | "500" | "429" | "timeout" | "reset" | "reset-mid-stream";

export type ChaosUpstream = {
  /** Base URL, with /v1. */
  url: string;
  /** What the next request gets (default: ok), from its API key (the bearer token) if it matters. */
  decide: (req: { apiKey: string }) => ChaosMode;
  /** Requests by the API key they came with. */
  byKey: Record<string, number>;
  /** Retry-After seconds on 429s (default "0"). */
  retryAfter: string;
  /** Requests by the mode they were answered with. */
  counts: Record<ChaosMode, number>;
  stop(): Promise<void>;
};

const text = (body: { messages?: { role: string; content: unknown }[] }) => {
  const last = [...(body.messages ?? [])].reverse().find((m) => m.role === "user");
  return typeof last?.content === "string" ? last.content : "";
};

export async function startChaosUpstream(name: string): Promise<ChaosUpstream> {
  const chaos: ChaosUpstream = {
    url: "",
    decide: () => "ok",
    byKey: {},
    retryAfter: "0",
    counts: { ok: 0, "400": 0, "500": 0, "429": 0, timeout: 0, reset: 0, "reset-mid-stream": 0 },
    stop: async () => {},
  };
  const answer = (req: IncomingMessage, res: ServerResponse, raw: string) => {
    const apiKey = String(req.headers.authorization ?? "").replace(/^Bearer /, "");
    chaos.byKey[apiKey] = (chaos.byKey[apiKey] ?? 0) + 1;
    const mode = chaos.decide({ apiKey });
    chaos.counts[mode]++;
    let body: { model?: string; stream?: boolean; messages?: { role: string; content: unknown }[] } = {};
    try {
      body = JSON.parse(raw);
    } catch {}
    if (mode === "reset" || (mode === "reset-mid-stream" && !body.stream)) return req.socket.destroy();
    if (mode === "timeout") return; // the client's deadline ends it
    if (mode === "400" || mode === "500" || mode === "429") {
      const headers: Record<string, string> = { "content-type": "application/json" };
      if (mode === "429") headers["retry-after"] = chaos.retryAfter;
      res.writeHead(Number(mode), headers);
      return res.end(JSON.stringify({ error: { message: `chaos ${mode}`, type: "server_error", param: null, code: `chaos_${mode}` } }));
    }
    if (req.url?.endsWith("/embeddings")) {
      res.writeHead(200, { "content-type": "application/json" });
      const data = [{ object: "embedding", index: 0, embedding: name.split("").map((c) => c.charCodeAt(0) / 256) }];
      return res.end(JSON.stringify({ object: "list", data, model: body.model ?? "m", usage: { prompt_tokens: 1, total_tokens: 1 } }));
    }
    const tools = (body as { tools?: { function?: { name?: string } }[] }).tools;
    if (tools?.[0]?.function?.name === "record_verdict") {
      // A judge call (Hone's forced verdict tool): FAIL when what it judges says "wrong".
      const judgement = raw.includes("wrong") ? "FAIL" : "PASS";
      const call = { id: "call_v", type: "function", function: { name: "record_verdict", arguments: JSON.stringify({ explanation: "judged", judgement }) } };
      res.writeHead(200, { "content-type": "application/json" });
      return res.end(
        JSON.stringify({
          id: "chatcmpl-judge",
          object: "chat.completion",
          created: 1,
          model: body.model ?? "judge",
          choices: [{ index: 0, message: { role: "assistant", content: null, tool_calls: [call] }, finish_reason: "tool_calls" }],
          usage: { prompt_tokens: 20, completion_tokens: 5, total_tokens: 25 },
        }),
      );
    }
    const content = `${name}: ${text(body)}`;
    const base = { id: `chatcmpl-${name}-${chaos.counts.ok}`, created: 1, model: body.model ?? "m" };
    if (!body.stream) {
      res.writeHead(200, { "content-type": "application/json" });
      return res.end(
        JSON.stringify({
          ...base,
          object: "chat.completion",
          choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
          usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
        }),
      );
    }
    res.writeHead(200, { "content-type": "text/event-stream" });
    const chunk = (delta: object, finish: string | null) =>
      `data: ${JSON.stringify({ ...base, object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    res.write(chunk({ role: "assistant", content: `${name}: ` }, null));
    if (mode === "reset-mid-stream") return void setTimeout(() => res.destroy(), 10);
    res.write(chunk({ content: text(body) }, null));
    res.write(chunk({}, "stop"));
    res.write(
      `data: ${JSON.stringify({ ...base, object: "chat.completion.chunk", choices: [], usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } })}\n\n`,
    );
    res.end("data: [DONE]\n\n");
  };
  const server = createServer((req, res) => {
    let raw = "";
    req.on("data", (c) => {
      raw += c;
    });
    req.on("end", () => answer(req, res, raw));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const { port } = server.address() as { port: number };
  chaos.url = `http://127.0.0.1:${port}/v1`;
  chaos.stop = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return chaos;
}
