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
const server = Bun.serve({
  port,
  hostname: "127.0.0.1",
  async fetch(req) {
    await req.arrayBuffer();
    if (latencyMs > 0) await Bun.sleep(latencyMs);
    return new Response(body, { headers: { "content-type": "application/json" } });
  },
});
console.log(JSON.stringify({ listening: server.port }));
export {};
