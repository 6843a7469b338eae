import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestApp, serve, storeProviderKey, type TestApp } from "../helpers/app";
import { logsOf } from "../helpers/logs";
import { type FakeServer, startFakeAnthropic, startFakeChat, startFakeResponses } from "./agent-fakes";
import { runClaudeCode, runCodex } from "./run-agents";

// The real Claude Code and Codex command-line agents (pinned in this folder's package.json, npm
// packages with native binaries) run a tool-using task through Hone: Claude Code on /messages,
// Codex on /responses, each to an Anthropic and to an OpenAI upstream (fakes that answer with a
// tool call, then with text built from the tool's result). Each agent's whole session is logged,
// one log per model call.

const DIR = import.meta.dir;

/** Written after a whole `npm ci`: the lockfile's hash, so a half-done install or a version bump installs again. */
const MARKER = join(DIR, "node_modules/.hone-installed");
const lockHash = () => new Bun.CryptoHasher("sha256").update(readFileSync(join(DIR, "package-lock.json"))).digest("hex");
const installed = () => existsSync(MARKER) && readFileSync(MARKER, "utf8") === lockHash();

/**
 * Installs the agents once (npm's cache keeps the packages between runs and test files). Two suites
 * running at once (the PGlite and the Postgres suite started side by side) install under a lock: a
 * directory made atomically, taken over when it is more than 4 minutes old (a run killed mid-install).
 */
async function ensureAgents() {
  if (installed()) return;
  const lock = join(DIR, ".installing");
  const deadline = Date.now() + 4.5 * 60_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      const since = statSync(lock, { throwIfNoEntry: false })?.mtimeMs;
      if (since !== undefined && Date.now() - since > 4 * 60_000) rmSync(lock, { recursive: true, force: true });
      if (Date.now() > deadline) throw new Error(`test/agents: another run has been installing the agents for 4.5 minutes (remove ${lock} if none is)`);
      await Bun.sleep(500);
    }
  }
  try {
    if (installed()) return; // the other run finished it
    const res = Bun.spawnSync(["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"], { cwd: DIR, stdout: "pipe", stderr: "pipe" });
    if (res.exitCode !== 0) throw new Error(`npm ci in test/agents failed: ${res.stderr.toString()}`);
    writeFileSync(MARKER, lockHash());
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

let t: TestApp;
let anthropic: FakeServer;
let chat: FakeServer;
let responses: FakeServer;
/** OpenAI: /responses to the Responses fake (Hone passes Codex's calls through), the rest to the chat fake. */
let openai: ReturnType<typeof Bun.serve>;
let server: { url: string; stop(): Promise<void> };
let cwd: string;
let secret: string;

beforeAll(async () => {
  await ensureAgents();
  secret = `SECRET-${crypto.randomUUID().slice(0, 8)}`;
  cwd = mkdtempSync(join(tmpdir(), "hone-agent-work-"));
  writeFileSync(join(cwd, "secret.txt"), `${secret}\n`);
  anthropic = startFakeAnthropic({ file: "secret.txt" });
  chat = startFakeChat({ file: "secret.txt", command: "cat secret.txt" });
  responses = startFakeResponses({ file: "secret.txt", command: "cat secret.txt" });
  openai = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 120,
    async fetch(req) {
      const u = new URL(req.url);
      const to = u.pathname.endsWith("/responses") ? responses.url : chat.url;
      return fetch(`${to}${u.pathname}${u.search}`, { method: req.method, headers: req.headers, body: await req.arrayBuffer() });
    },
  });
  t = await createTestApp({ env: { ANTHROPIC_BASE_URL: anthropic.url, OPENAI_BASE_URL: `http://127.0.0.1:${openai.port}/v1` } });
  await storeProviderKey(t, "anthropic", "sk-ant-agents-test");
  await storeProviderKey(t, "openai", "sk-openai-agents-test");
  server = serve(t.app);
}, 300_000);
afterAll(async () => {
  await server?.stop();
  anthropic?.stop();
  chat?.stop();
  responses?.stop();
  openai?.stop(true);
  await t?.close();
  if (cwd) rmSync(cwd, { recursive: true, force: true });
});

/** The logs a run added, checked: one per model call, each with its api, tokens and cost. */
async function logsSince(before: number, api: string) {
  const logs = (await logsOf(t)).slice(before);
  for (const l of logs) {
    expect(l.api).toBe(api);
    expect(l.statusCode).toBe(200);
    expect(l.inputTokens).toBeGreaterThan(0);
    expect(l.outputTokens).toBeGreaterThan(0);
    expect(l.costUsd).toBeGreaterThan(0);
  }
  return logs;
}

const explain = (what: string, res: { stdout: string; stderr: string }, fake: FakeServer) =>
  `${what}\nstdout: ${res.stdout}\nstderr: ${res.stderr.slice(-2000)}\nupstream: ${fake.requests.map((r) => `${r.method} ${r.path}`).join(", ")}`;

describe("Claude Code through Hone's /messages", () => {
  test("to Anthropic (passed through): it reads the file with its Read tool and answers from it", async () => {
    const before = (await logsOf(t)).length;
    const calls = anthropic.requests.length;
    const res = await runClaudeCode({
      baseUrl: `${server.url}/api`,
      apiKey: t.project.apiKey,
      cwd,
      model: "claude-sonnet-4-5",
      prompt: "Read the file secret.txt and tell me exactly what it says.",
      timeoutMs: 120_000,
    });
    if (!res.stdout.includes(secret)) throw new Error(explain("Claude Code did not answer from the file", res, anthropic));
    expect(res.exitCode).toBe(0);
    const upstream = anthropic.requests.slice(calls).filter((r) => r.path === "/v1/messages");
    // Its betas reached Anthropic, and its key never did: Hone's provider key did.
    expect(upstream[0]!.headers["anthropic-beta"]).toContain("claude-code-");
    expect(upstream[0]!.headers["x-api-key"]).toBe("sk-ant-agents-test");
    const logs = await logsSince(before, "messages");
    expect(logs.length).toBe(upstream.length);
    expect(logs.length).toBeGreaterThanOrEqual(2);
    expect(JSON.stringify(logs.at(-1)!.body?.reqPayloadOriginal)).toContain(secret);
  }, 180_000);

  test("to an OpenAI model (translated to chat completions): the same task works", async () => {
    const before = (await logsOf(t)).length;
    const calls = chat.requests.length;
    const res = await runClaudeCode({
      baseUrl: `${server.url}/api`,
      apiKey: t.project.apiKey,
      cwd,
      model: "openai:gpt-4o-mini",
      // Every tool offered at once (no deferred tools behind a search): chat completions has no such thing.
      env: { CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS: "1" },
      prompt: "Read the file secret.txt and tell me exactly what it says.",
      timeoutMs: 120_000,
    });
    if (!res.stdout.includes(secret)) throw new Error(explain("Claude Code did not answer from the file", res, chat));
    expect(res.exitCode).toBe(0);
    const upstream = chat.requests.slice(calls);
    expect(upstream.length).toBeGreaterThanOrEqual(2);
    expect(upstream[0]!.body.tools.some((x: { function: { name: string } }) => x.function.name === "Read")).toBe(true);
    const logs = await logsSince(before, "messages");
    expect(logs.length).toBe(upstream.length);
    expect(logs.every((l) => l.provider === "openai")).toBe(true);
  }, 180_000);
});

describe("Codex through Hone's /responses", () => {
  test("to OpenAI (passed through): it runs a shell command and answers from its output", async () => {
    const before = (await logsOf(t)).length;
    const calls = responses.requests.length;
    const res = await runCodex({
      baseUrl: `${server.url}/api/v1`,
      apiKey: t.project.apiKey,
      cwd,
      model: "gpt-4.1",
      prompt: "Run `cat secret.txt` in the current directory and tell me its output.",
      timeoutMs: 120_000,
    });
    if (!res.stdout.includes(secret)) throw new Error(explain("Codex did not answer from the command", res, responses));
    expect(res.exitCode).toBe(0);
    const upstream = responses.requests.slice(calls);
    // Codex's own request reached OpenAI: its tools (hosted ones included), its include and store.
    expect(upstream[0]!.body.tools.some((x: { name?: string }) => x.name === "exec_command")).toBe(true);
    expect(upstream[0]!.body.store).toBe(false);
    const logs = await logsSince(before, "responses");
    expect(logs.length).toBe(upstream.length);
    expect(logs.length).toBeGreaterThanOrEqual(2);
    // The command's output went back to the model as a function_call_output.
    expect(JSON.stringify(upstream.at(-1)!.body.input.at(-1))).toContain(secret);
  }, 180_000);

  test("to an Anthropic model (translated): the same task works", async () => {
    const before = (await logsOf(t)).length;
    const calls = anthropic.requests.length;
    const res = await runCodex({
      baseUrl: `${server.url}/api/v1`,
      apiKey: t.project.apiKey,
      cwd,
      model: "anthropic:claude-sonnet-4-5",
      prompt: "Run `cat secret.txt` in the current directory and tell me its output.",
      timeoutMs: 120_000,
    });
    if (!res.stdout.includes(secret)) throw new Error(explain("Codex did not answer from the command", res, anthropic));
    expect(res.exitCode).toBe(0);
    const upstream = anthropic.requests.slice(calls).filter((r) => r.path === "/v1/messages");
    const logs = await logsSince(before, "responses");
    expect(logs.length).toBe(upstream.length);
    expect(logs.every((l) => l.provider === "anthropic")).toBe(true);
  }, 180_000);
});
