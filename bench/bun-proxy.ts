// The floor for any Bun gateway on this machine: a proxy with no logic at all (read the body,
// fetch the upstream, pass its body on as it arrives). Hone's added latency is compared with this too.
//   bun bench/bun-proxy.ts <upstream chat-completions URL>
const upstream = process.argv[2]!;
const server = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  async fetch(req) {
    const res = await fetch(upstream, { method: "POST", headers: { "content-type": "application/json" }, body: await req.text() });
    return new Response(res.body, { headers: { "content-type": res.headers.get("content-type") ?? "application/json" } });
  },
});
console.log(JSON.stringify({ listening: server.port }));
export {};
