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
const server = Bun.serve({
  port,
  hostname: "127.0.0.1",
  async fetch(req) {
    const text = await req.text();
    if (latencyMs > 0) await Bun.sleep(latencyMs);
    // A judge call (Hone's forced record_verdict tool) gets a verdict.
    if (text.includes('"record_verdict"')) return new Response(verdict, { headers: { "content-type": "application/json" } });
    return new Response(body, { headers: { "content-type": "application/json" } });
  },
});
console.log(JSON.stringify({ listening: server.port }));
export {};
