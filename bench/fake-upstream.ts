// A minimal OpenAI-compatible upstream for benchmarks, run in its own process so it does not
// share Hone's event loop: answers every chat completion after a fixed delay.
//   bun bench/fake-upstream.ts <port> <latencyMs>
const port = Number(process.argv[2] ?? 0);
const latencyMs = Number(process.argv[3] ?? 0);
const body = JSON.stringify({
  id: "chatcmpl-bench",
  object: "chat.completion",
  created: 1_700_000_000,
  model: "gpt-4o-mini",
  choices: [{ index: 0, message: { role: "assistant", content: "Paris is the capital of France.", refusal: null }, logprobs: null, finish_reason: "stop" }],
  usage: { prompt_tokens: 24, completion_tokens: 8, total_tokens: 32 },
});
const verdict = JSON.stringify({
  id: "chatcmpl-judge",
  object: "chat.completion",
  created: 1_700_000_000,
  model: "judge",
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
// Streamed answers of the Responses API and of Anthropic's Messages API, for the protocol bench.
const sse = (events: [string, object][]) => events.map(([type, data]) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`).join("");
const words = ["Paris ", "is the ", "capital."];
const response = {
  id: "resp_bench",
  object: "response",
  created_at: 1_700_000_000,
  model: "gpt-4o-mini",
  status: "in_progress",
  output: [] as object[],
  usage: null as object | null,
};
const message = {
  id: "msg_bench",
  type: "message",
  role: "assistant",
  content: [{ type: "output_text", text: words.join(""), annotations: [] }],
  status: "completed",
};
const responsesStream = sse([
  ["response.created", { sequence_number: 0, response }],
  ["response.output_item.added", { sequence_number: 1, output_index: 0, item: { ...message, content: [], status: "in_progress" } }],
  [
    "response.content_part.added",
    { sequence_number: 2, item_id: "msg_bench", output_index: 0, content_index: 0, part: { type: "output_text", text: "", annotations: [] } },
  ],
  ...words.map((delta, i): [string, object] => [
    "response.output_text.delta",
    { sequence_number: 3 + i, item_id: "msg_bench", output_index: 0, content_index: 0, delta },
  ]),
  ["response.output_item.done", { sequence_number: 6, output_index: 0, item: message }],
  [
    "response.completed",
    {
      sequence_number: 7,
      response: {
        ...response,
        status: "completed",
        output: [message],
        usage: { input_tokens: 24, output_tokens: 8, total_tokens: 32, input_tokens_details: { cached_tokens: 0 } },
      },
    },
  ],
]);
const messagesStream = sse([
  [
    "message_start",
    {
      message: {
        id: "msg_bench",
        type: "message",
        role: "assistant",
        model: "claude-sonnet-4-5",
        content: [],
        stop_reason: null,
        usage: { input_tokens: 24, output_tokens: 1 },
      },
    },
  ],
  ["content_block_start", { index: 0, content_block: { type: "text", text: "" } }],
  ...words.map((text): [string, object] => ["content_block_delta", { index: 0, delta: { type: "text_delta", text } }]),
  ["content_block_stop", { index: 0 }],
  ["message_delta", { delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 8 } }],
  ["message_stop", {}],
]);
let served = 0;
const stream = (text: string) => new Response(text, { headers: { "content-type": "text/event-stream" } });

const server = Bun.serve({
  port,
  hostname: "127.0.0.1",
  async fetch(req) {
    const text = await req.text();
    // The model "fail-500" fails at once, as a provider's outage does (the routing bench's failed attempt).
    if (text.includes('"model":"fail-500"')) return Response.json({ error: { message: "down", type: "server_error" } }, { status: 500 });
    if (latencyMs > 0) await Bun.sleep(latencyMs);
    // A judge call (Hone's forced record_verdict tool) gets a verdict.
    if (text.includes('"record_verdict"')) return new Response(verdict, { headers: { "content-type": "application/json" } });
    const path = new URL(req.url).pathname;
    // Each Response has its own id, as OpenAI's do (Hone stores them by id).
    if (path.endsWith("/responses")) return stream(responsesStream.replaceAll('"resp_bench"', `"resp_bench_${++served}"`));
    if (path.endsWith("/messages")) return stream(messagesStream);
    return new Response(body, { headers: { "content-type": "application/json" } });
  },
});
console.log(JSON.stringify({ listening: server.port }));
export {};
