import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ConfigError, loadConfig } from "../../src/core/config";
import { MAX_MODEL_LENGTH, MAX_UPSTREAM_ERROR_TEXT } from "../../src/core/limits";
import { createUpstreamFactory, upstreamPolicy } from "../../src/providers";
import { createTestApp, testConfig, type TestApp } from "../helpers/app";
import { startFakeOpenAI, type FakeUpstream } from "../helpers/fake-upstreams";
import { latestLog } from "../helpers/logs";
import type { GqlError, GqlErrorBody } from "../helpers/gql";
import type { ChatErrorBody, RestOutput } from "../helpers/rest";

// Custom providers are URLs a tenant chose. These tests run the real guard, real HTTP and the real
// database: a "secret" server on loopback stands for everything inside the network Hone runs in,
// and must never see a request unless the operator opened it. DNS is played by an injected
// resolver, so a name can be made to move to a private address between saving and calling.

type Server = { url: string; port: number; hits: string[]; stop(): Promise<void> };

function startServer(hostname: string, answer: (req: Request) => Response): Server {
  const hits: string[] = [];
  const server = Bun.serve({
    port: 0,
    hostname,
    fetch(req) {
      hits.push(`${req.method} ${new URL(req.url).pathname}`);
      return answer(req);
    },
  });
  return { url: `http://${hostname}:${server.port}`, port: server.port!, hits, stop: () => server.stop(true) };
}

const completion = () =>
  Response.json({
    id: "chatcmpl-secret",
    object: "chat.completion",
    created: 1,
    model: "m",
    choices: [{ index: 0, message: { role: "assistant", content: "the secret" }, finish_reason: "stop" }],
  });

let secret: Server;
let redirector: Server;
let bigError: Server;
let second: Server; // a fake upstream on 127.0.0.2, for the CIDR allowlist
let fake: FakeUpstream;
/** The injected DNS: name -> addresses; unknown names do not resolve. */
const dns = new Map<string, string[]>();
const resolveHost = async (name: string) => {
  const a = dns.get(name);
  if (!a) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: "ENOTFOUND" });
  return a;
};
let strict: TestApp; // the secure default
let open: TestApp; // HONE_ALLOW_PRIVATE_UPSTREAMS=true
let listed: TestApp; // HONE_UPSTREAM_ALLOWLIST
let tlsApp: TestApp; // trusts the test certificate, for the https path
let tlsServer: Server;
const cert = await Bun.file(new URL("../fixtures/tls-llm-test.crt", import.meta.url)).text();
const key = await Bun.file(new URL("../fixtures/tls-llm-test.key", import.meta.url)).text();

beforeAll(async () => {
  secret = startServer("127.0.0.1", completion);
  redirector = startServer("127.0.0.1", () => new Response(null, { status: 302, headers: { location: `${secret.url}/v1/chat/completions` } }));
  bigError = startServer("127.0.0.1", () => new Response(`<html>${"x".repeat(1024 * 1024)}</html>`, { status: 500, headers: { "content-type": "text/html" } }));
  second = startServer("127.0.0.2", completion);
  fake = startFakeOpenAI();
  dns.set("localhost", ["127.0.0.1"]);
  strict = await createTestApp({ deps: { resolveHost } });
  open = await createTestApp({ env: { HONE_ALLOW_PRIVATE_UPSTREAMS: "true" }, deps: { resolveHost } });
  const tlsHits: string[] = [];
  const ts = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    tls: { cert, key },
    fetch(req) {
      tlsHits.push(req.headers.get("host") ?? "");
      return completion();
    },
  });
  tlsServer = { url: `https://127.0.0.1:${ts.port}`, port: ts.port!, hits: tlsHits, stop: () => ts.stop(true) };
  // The same factory Hone builds, with a fetch that trusts the test certificate (a self-signed
  // one for the name llm.example.test).
  const trusting = ((input: string | URL | Request, init?: BunFetchRequestInit) => fetch(input, { ...init, tls: { ...init?.tls, ca: cert } })) as typeof fetch;
  const tlsEnv = { HONE_ALLOW_PRIVATE_UPSTREAMS: "true" };
  tlsApp = await createTestApp({
    env: tlsEnv,
    deps: {
      resolveHost,
      upstreams: createUpstreamFactory({ timeoutMs: 10_000, fetch: trusting }, { policy: upstreamPolicy(testConfig(tlsEnv)), resolve: resolveHost }),
    },
  });
  listed = await createTestApp({
    env: { HONE_UPSTREAM_ALLOWLIST: `127.0.0.1:${redirector.port}, localhost:${fake.url.split(":")[2]}, 127.0.0.2/32` },
    deps: { resolveHost },
  });
});
afterAll(async () => {
  for (const s of [secret, redirector, bigError, second, fake, tlsServer]) await s?.stop();
  for (const t of [strict, open, listed, tlsApp]) await t?.close();
});

async function createProvider(t: TestApp, slug: string, baseUrl: string) {
  const res = await t.request("POST", "/graphql", {
    body: {
      query: `mutation($s: String!, $u: String!) { createCustomProvider(input: {slug: $s, kind: "openai", baseUrl: $u}) { slug baseUrl } }`,
      variables: { s: slug, u: baseUrl },
    },
  });
  return (await res.json()) as { data?: { createCustomProvider: { slug: string; baseUrl: string } } | null; errors?: GqlError[] };
}

/** A chat call: its status and body, an error body unless the caller names the completion's type. */
async function chat<T = ChatErrorBody>(t: TestApp, model: string): Promise<{ status: number; body: T }> {
  const res = await t.request("POST", "/api/v1/chat/completions", { body: { model, messages: [{ role: "user", content: "hi" }] } });
  return { status: res.status, body: (await res.json()) as T };
}
type Completion = RestOutput<"POST /chat/completions">;

describe("custom providers on private addresses are refused by default", () => {
  test("loopback, private and odd literal forms are refused when saved, before any connection", async () => {
    const p = secret.port;
    const urls = [
      `http://127.0.0.1:${p}/v1`,
      `http://2130706433:${p}/v1`, // decimal 127.0.0.1
      `http://0x7f.1:${p}/v1`, // hex and short form
      `http://017700000001:${p}/v1`, // octal
      `http://[::1]:${p}/v1`,
      `http://[::ffff:7f00:1]:${p}/v1`, // IPv4-mapped IPv6
      `http://[::ffff:127.0.0.1]:${p}/v1`,
      `http://0.0.0.0:${p}/v1`,
      `http://localhost:${p}/v1`,
      `http://app.localhost:${p}/v1`,
      `http://10.0.0.5/v1`,
      `http://172.16.3.4/v1`,
      `http://192.168.1.10/v1`,
      `http://100.64.0.1/v1`,
      `http://169.254.10.10/v1`,
      `http://[fd12::1]/v1`,
      `http://[fe80::1]/v1`,
      `http://[64:ff9b::7f00:1]/v1`, // NAT64 of 127.0.0.1
    ];
    for (const [i, u] of urls.entries()) {
      const r = await createProvider(strict, `p${i}`, u);
      expect({ u, code: r.errors?.[0]?.extensions?.code }).toEqual({ u, code: "VALIDATION" });
      expect(r.errors![0]!.message).toMatch(/private, loopback or link-local|the local machine/);
      expect(r.errors![0]!.message).toContain("HONE_ALLOW_PRIVATE_UPSTREAMS");
    }
    expect(secret.hits).toEqual([]);
  });

  test("checked again at call time: a name that moved to a private address after it was saved", async () => {
    dns.set("moving.example.test", ["93.184.216.34"]);
    const saved = await createProvider(strict, "moving", `http://moving.example.test:${secret.port}/v1`);
    expect(saved.data!.createCustomProvider.slug).toBe("moving");
    // DNS changes: the check at connection time is the one that counts.
    dns.set("moving.example.test", ["127.0.0.1"]);
    const r = await chat(strict, "hone:moving/m");
    expect(r.status).toBe(400);
    expect(r.body.code).toBe("VALIDATION");
    expect(r.body.message).toBe(
      "Custom provider moving may not be called: its host name resolves to a private, loopback or link-local address " +
        "(an operator can allow it with HONE_ALLOW_PRIVATE_UPSTREAMS=true or HONE_UPSTREAM_ALLOWLIST)",
    );
    expect(r.body.message).not.toContain("127.0.0.1");
    // One public and one private answer: refused, not half-trusted.
    dns.set("moving.example.test", ["93.184.216.34", "::ffff:127.0.0.1"]);
    expect((await chat(strict, "hone:moving/m")).status).toBe(400);
    expect(secret.hits).toEqual([]);
    const log = await latestLog(strict);
    expect(log).toMatchObject({ provider: "custom", statusCode: 400, model: "hone:moving/m", errorMessage: r.body.message });
  });

  test("a name that does not resolve is an upstream error, not a crash", async () => {
    await createProvider(strict, "nowhere", "http://no-such-host.example.test/v1");
    const r = await chat(strict, "hone:nowhere/m");
    expect(r.status).toBe(502);
    expect(r.body.code).toBe("UPSTREAM_ERROR");
    expect(r.body.message).toContain("does not resolve");
  });

  test("schemes other than http(s) and over-long base URLs are refused", async () => {
    for (const u of ["ftp://example.com/v1", "file:///etc/passwd", "gopher://example.com:70/", `https://example.com/${"a".repeat(2100)}`]) {
      const r = await createProvider(strict, "scheme", u);
      expect({ u, code: r.errors?.[0]?.extensions?.code }).toEqual({ u, code: "VALIDATION" });
    }
  });
});

describe("HONE_ALLOW_PRIVATE_UPSTREAMS=true", () => {
  test("reaches a local upstream (a vLLM or Ollama next to Hone), by address and by name, connecting to the checked address", async () => {
    const saved = await createProvider(open, "local", `${fake.url}/v1`);
    expect(saved.data!.createCustomProvider.slug).toBe("local");
    const r = await chat<Completion>(open, "hone:local/llama");
    expect(r.status).toBe(200);
    expect(r.body.choices[0]!.message.content).toBe("echo: hi");

    dns.set("vllm.internal.test", ["127.0.0.1"]);
    const port = fake.url.split(":")[2];
    await createProvider(open, "byname", `http://vllm.internal.test:${port}/v1`);
    expect((await chat(open, "hone:byname/llama")).status).toBe(200);
    // Hone connected to the address it checked and kept the name in the Host header.
    expect(fake.requests.at(-1)!.headers.host).toBe(`vllm.internal.test:${port}`);
  });

  test("https: connects to the checked address and still verifies the certificate against the name", async () => {
    dns.set("llm.example.test", ["127.0.0.1"]);
    dns.set("impostor.example.test", ["127.0.0.1"]);
    await createProvider(tlsApp, "tls", `https://llm.example.test:${tlsServer.port}/v1`);
    const r = await chat(tlsApp, "hone:tls/m");
    expect(r.status).toBe(200);
    expect(tlsServer.hits).toEqual([`llm.example.test:${tlsServer.port}`]);
    // The certificate names llm.example.test only: another name pinned to the same address fails.
    await createProvider(tlsApp, "impostor", `https://impostor.example.test:${tlsServer.port}/v1`);
    const bad = await chat(tlsApp, "hone:impostor/m");
    expect(bad.status).toBe(502);
    expect(bad.body.message).toContain("CERT_ALTNAME_INVALID");
    expect(tlsServer.hits).toHaveLength(1);
  });

  test("cloud metadata stays refused, by address, by name and by a name that resolves there", async () => {
    for (const u of [
      "http://169.254.169.254/latest/meta-data",
      "http://169.254.170.2/v2/credentials",
      "http://[fd00:ec2::254]/",
      "http://[::ffff:a9fe:a9fe]/",
      "http://metadata.google.internal/computeMetadata/v1",
      "http://100.100.100.200/",
    ]) {
      const r = await createProvider(open, "meta", u);
      expect({ u, code: r.errors?.[0]?.extensions?.code }).toEqual({ u, code: "VALIDATION" });
      expect(r.errors![0]!.message).toContain("metadata");
    }
    dns.set("innocent.example.test", ["127.0.0.1"]);
    await createProvider(open, "rebind", "http://innocent.example.test/v1");
    dns.set("innocent.example.test", ["169.254.169.254"]);
    const started = performance.now();
    const r = await chat(open, "hone:rebind/m");
    // Refused before connecting: there is no network here, and no connect timeout was waited for.
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(r.status).toBe(400);
    expect(r.body.message).toContain("a cloud metadata address, which is never allowed");
  });

  test("redirects are not followed, even to an address that would be allowed", async () => {
    await createProvider(open, "redir", `${redirector.url}/v1`);
    const before = redirector.hits.length;
    const r = await chat(open, "hone:redir/m");
    expect(r.status).toBe(502);
    expect(r.body.code).toBe("UPSTREAM_ERROR");
    expect(r.body.message).toContain("redirect (HTTP 302); redirects are not followed");
    expect(redirector.hits.length).toBe(before + 1);
    expect(secret.hits).toEqual([]);
  });

  test("a 1 MB non-JSON error body is capped and labelled, for the client and in the log", async () => {
    await createProvider(open, "html", `${bigError.url}/v1`);
    const r = await chat(open, "hone:html/m");
    expect(r.status).toBe(500);
    expect(r.body.code).toBe("UPSTREAM_ERROR");
    expect(r.body.message.startsWith('custom provider html returned HTTP 500 with a non-JSON body: "<html>xxx')).toBe(true);
    expect(r.body.message.endsWith(" (truncated)")).toBe(true);
    expect(r.body.message.length).toBeLessThan(MAX_UPSTREAM_ERROR_TEXT + 200);
    expect(r.body.error.message).toBe(r.body.message);
    const log = await latestLog(open);
    expect(log.statusCode).toBe(500);
    expect(log.errorMessage).toBe(r.body.message);
    const stored = JSON.stringify(log.body.respPayload);
    expect(stored.length).toBeLessThan(MAX_UPSTREAM_ERROR_TEXT + 300);
    expect(log.body.respPayload).toEqual({ error: { message: r.body.message, type: "upstream_error" } });
  });
});

describe("HONE_UPSTREAM_ALLOWLIST", () => {
  test("host:port opens that port only; the redirect it answers with is not followed to the secret server", async () => {
    const refused = await createProvider(listed, "secret", `${secret.url}/v1`);
    expect(refused.errors![0]!.extensions!.code).toBe("VALIDATION");
    expect((await createProvider(listed, "redir", `${redirector.url}/v1`)).data!.createCustomProvider.slug).toBe("redir");
    const before = redirector.hits.length;
    const r = await chat(listed, "hone:redir/m");
    expect(r.status).toBe(502);
    expect(r.body.message).toContain("redirects are not followed");
    expect(redirector.hits.length).toBe(before + 1);
    expect(secret.hits).toEqual([]);
  });

  test("a host name with a port, and a CIDR", async () => {
    await createProvider(listed, "named", `http://localhost:${fake.url.split(":")[2]}/v1`);
    expect((await chat(listed, "hone:named/m")).status).toBe(200);
    // localhost on another port is not on the list.
    expect((await createProvider(listed, "named2", `http://localhost:${secret.port}/v1`)).errors![0]!.extensions!.code).toBe("VALIDATION");

    await createProvider(listed, "cidr", `${second.url}/v1`);
    const r = await chat<Completion>(listed, "hone:cidr/m");
    expect(r.status).toBe(200);
    expect(r.body.choices[0]!.message.content).toBe("the secret");
    expect(second.hits).toEqual(["POST /v1/chat/completions"]);
    // 127.0.0.2/32 does not cover 127.0.0.1.
    dns.set("sneaky.example.test", ["127.0.0.1"]);
    await createProvider(listed, "sneaky", `http://sneaky.example.test:${secret.port}/v1`);
    expect((await chat(listed, "hone:sneaky/m")).status).toBe(400);
    expect(secret.hits).toEqual([]);
  });

  test("bad entries stop the start with a message naming the variable", () => {
    expect(() => loadConfig({ HONE_UPSTREAM_ALLOWLIST: "10.0.0.0/33" })).toThrow(ConfigError);
    expect(() => loadConfig({ HONE_UPSTREAM_ALLOWLIST: "ok.example, not a host" })).toThrow(/HONE_UPSTREAM_ALLOWLIST entry "not a host"/);
    expect(() => loadConfig({ HONE_UPSTREAM_ALLOWLIST: "host:99999" })).toThrow(/invalid port/);
    expect(loadConfig({ HONE_UPSTREAM_ALLOWLIST: "ollama:11434, 10.0.0.0/8, [::1]:8000, fd00::/8" }).upstreamAllowlist).toEqual([
      "ollama:11434",
      "10.0.0.0/8",
      "[::1]:8000",
      "fd00::/8",
    ]);
  });
});

describe("model strings have a length cap", () => {
  const long = `openai:${"g".repeat(3000)}`;

  test("on /chat/completions", async () => {
    const r = await chat(strict, long);
    expect(r.status).toBe(400);
    expect(r.body.code).toBe("VALIDATION");
    expect(r.body.issues[0]!.message).toBe(`model: model must be at most ${MAX_MODEL_LENGTH} characters`);
  });

  test("on criteria, evaluations, fine-tunes and relabelling", async () => {
    const gql = async (query: string, variables: Record<string, unknown>) =>
      (await (await strict.request("POST", "/graphql", { body: { query, variables } })).json()) as GqlErrorBody;
    const crit = await gql(`mutation($m: String!) { createCriterion(input: {name: "c", judgeModel: $m, prompt: "Is {{output}} fine?"}) { id } }`, { m: long });
    expect(crit.errors[0]!.extensions!.code).toBe("VALIDATION");
    const ft = await strict.request("POST", "/api/v1/unstable/finetune/create", { body: { datasetId: "ds_x", slug: "x", baseModel: long } });
    expect(ft.status).toBe(400);
    const evalRes = await gql(`mutation($m: String!) { createEvaluation(input: {datasetId: "ds_x", models: [$m], criterionIds: ["crit_x"]}) { id } }`, {
      m: long,
    });
    expect(evalRes.errors[0]!.extensions!.code).toBe("VALIDATION");
    const relabel = await gql(`mutation($m: String!) { relabelDatasetEntries(input: {datasetId: "ds_x", criterionId: "crit_x", model: $m}) { id } }`, {
      m: long,
    });
    expect(relabel.errors[0]!.extensions!.code).toBe("VALIDATION");
  });
});
