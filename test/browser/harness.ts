// The console's browser tests: a real Hone process (PGlite, or a fresh database on the Postgres
// server named by DATABASE_URL), fake upstreams, a few hundred seeded calls, and Debian's Chromium
// driven by playwright-core. Files are test/browser/*.browser.ts, run by `bun run test:browser`
// (they are not *.test.ts, so `bun run test` skips them).
import { cpSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import pLimit from "p-limit";
import { type BrowserContext, chromium, type Locator, type Page } from "playwright-core";
import { type FakeUpstream, startFakeAnthropic, startFakeOpenAI } from "../helpers/fake-upstreams";
import { createMigratedPostgresDatabase, removeAtEnd } from "../helpers/db";
import { type RunningServer, startServer } from "../helpers/process";
import { waitFor } from "../helpers/wait-for";

export const CHROMIUM = process.env.HONE_CHROMIUM ?? "/usr/bin/chromium";
/** Exactly CONSOLE.md's flags: without the background-networking ones Chromium floods the closed network. */
export const CHROMIUM_FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export const ADMIN_TOKEN = "browser-test-admin-token-0123456789";
export const BOOTSTRAP_KEY = "hone_sk_browsertestbootstrapkey000000000001";
export const PROJECT2_NAME = "Isolated project";
/** The project the bootstrap key belongs to (src/domain/projects/bootstrap-projects.ts). */
export const DEFAULT_PROJECT_NAME = "default";
const SECRET_KEY = Buffer.alloc(32, 9).toString("base64");
export const OPENAI_KEY = "sk-fake-openai-browser-0001";
const ANTHROPIC_KEY = "sk-ant-fake-browser-0001";
const SCREENSHOTS = resolve(import.meta.dir, "screenshots");

export type Tally = Record<string, number>;

/** What the seed wrote, read back from the API (logs.list) once every call was logged. */
export type Seeded = {
  /** Calls sent, by route. */
  sent: { gateway: number; report: number; reportAnthropic: number; total: number };
  /** Logs read back: counts by model (as logged), status code, source, and tag value. */
  logs: number;
  byModel: Tally;
  byStatus: Tally;
  bySource: Tally;
  byPromptId: Tally;
  byUser: Tally;
  cacheHits: number;
  /** Gateway calls whose answer was a tool call, and calls sent with an image. */
  toolCalls: number;
  withImages: number;
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  costUsd: number;
  /** The second project's own logs (for isolation tests). */
  project2: { logs: number; models: string[]; tags: string[] };
};

export type Hone = {
  url: string;
  server: RunningServer;
  openai: FakeUpstream;
  anthropic: FakeUpstream;
  onPostgres: boolean;
  /** The fresh database the server runs on (Postgres only), for benchmarks that seed it in SQL. */
  databaseUrl: string | null;
  /** The bootstrap project ("default"), seeded. */
  project: { id: string; name: string; apiKey: string };
  project2: { id: string; name: string; apiKey: string };
  seeded: Seeded | null;
  /** A tRPC call over HTTP with a bearer key (or the admin token); throws on an error answer. */
  trpc<T = any>(path: string, input?: unknown, opts?: { key?: string; mutation?: boolean }): Promise<T>;
  stop(): Promise<void>;
};

export type StartOptions = {
  /** Calls to seed into the bootstrap project (0: none). Default 300. */
  seed?: number;
  /** Session lifetimes (HONE_SESSION_IDLE_MS, HONE_SESSION_MAX_MS), when a test needs short ones. */
  sessionIdleMs?: number;
  sessionMaxMs?: number;
  env?: Record<string, string>;
};

/** Starts the server (and its fakes and database), creates project 2, seeds. Stop it with `stop()`. */
export async function startHone(opts: StartOptions = {}): Promise<Hone> {
  const cleanups: (() => Promise<void> | void)[] = [];
  const cleanup = async () => {
    for (const c of cleanups.reverse()) {
      try {
        await c();
      } catch (err) {
        console.error("browser harness cleanup:", err);
      }
    }
    cleanups.length = 0;
  };
  try {
    const onPostgres = Boolean(process.env.DATABASE_URL);
    const dbEnv: Record<string, string> = {};
    if (onPostgres) {
      const db = await createMigratedPostgresDatabase();
      cleanups.push(db.drop);
      dbEnv.DATABASE_URL = db.url;
    } else {
      const dir = mkdtempSync(join(tmpdir(), "hone-browser-"));
      cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
      cpSync(await pgliteTemplateDir(), dir, { recursive: true });
      rmSync(join(dir, "hone.lock"), { force: true });
      dbEnv.HONE_DATA_DIR = dir;
    }
    const openaiFake = startFakeOpenAI({ apiKey: OPENAI_KEY });
    cleanups.push(() => openaiFake.stop());
    const anthropicFake = startFakeAnthropic({ apiKey: ANTHROPIC_KEY });
    cleanups.push(() => anthropicFake.stop());
    const openaiFront = startFailingFront(openaiFake);
    cleanups.push(() => openaiFront.stop(true));
    const anthropicFront = startFailingFront(anthropicFake);
    cleanups.push(() => anthropicFront.stop(true));

    const env: Record<string, string> = {
      ...dbEnv,
      HONE_ADMIN_TOKEN: ADMIN_TOKEN,
      HONE_BOOTSTRAP_API_KEY: BOOTSTRAP_KEY,
      HONE_SECRET_KEY: SECRET_KEY,
      OPENAI_BASE_URL: `http://127.0.0.1:${openaiFront.port}/v1`,
      ANTHROPIC_BASE_URL: `http://127.0.0.1:${anthropicFront.port}`,
      // A revoked key is refused at once, not after the in-process cache's 5 s.
      HONE_API_KEY_CACHE_MS: "0",
      ...(opts.sessionIdleMs !== undefined ? { HONE_SESSION_IDLE_MS: String(opts.sessionIdleMs) } : {}),
      ...(opts.sessionMaxMs !== undefined ? { HONE_SESSION_MAX_MS: String(opts.sessionMaxMs) } : {}),
      ...opts.env,
    };
    const server = await startServer(env);
    cleanups.push(async () => {
      if (server.proc.exitCode === null) {
        const exited = server.stop("SIGTERM");
        const timer = setTimeout(() => server.proc.kill("SIGKILL"), 10_000);
        await exited;
        clearTimeout(timer);
      }
    });
    const url = server.url;

    const trpc: Hone["trpc"] = async (path, input, o = {}) => {
      const key = o.key ?? BOOTSTRAP_KEY;
      const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
      const res = o.mutation
        ? await fetch(`${url}/trpc/${path}`, { method: "POST", headers, body: JSON.stringify(input ?? null) })
        : await fetch(`${url}/trpc/${path}${input === undefined ? "" : `?input=${encodeURIComponent(JSON.stringify(input))}`}`, { headers });
      const body = (await res.json()) as any;
      if (!res.ok || body.error) throw new Error(`tRPC ${path} answered ${res.status}: ${JSON.stringify(body.error ?? body)}`);
      return body.result.data;
    };

    // The bootstrap project's provider keys (the fakes check them).
    await trpc("providerKeys.set", { provider: "openai", apiKey: OPENAI_KEY }, { mutation: true });
    await trpc("providerKeys.set", { provider: "anthropic", apiKey: ANTHROPIC_KEY }, { mutation: true });

    const p2 = await trpc<{ projectId: string; apiKey: string }>("admin.createProject", { name: PROJECT2_NAME }, { key: ADMIN_TOKEN, mutation: true });
    await trpc("providerKeys.set", { provider: "openai", apiKey: OPENAI_KEY }, { key: p2.apiKey, mutation: true });
    const listed = await trpc<{ id: string; name: string }[]>("admin.listProjects", undefined, { key: ADMIN_TOKEN });
    const p1Id = listed.find((p) => p.name === DEFAULT_PROJECT_NAME)?.id;
    if (!p1Id) throw new Error(`no "${DEFAULT_PROJECT_NAME}" project among ${JSON.stringify(listed)}`);

    const hone: Hone = {
      url,
      server,
      openai: openaiFake,
      anthropic: anthropicFake,
      onPostgres,
      databaseUrl: dbEnv.DATABASE_URL ?? null,
      project: { id: p1Id, name: DEFAULT_PROJECT_NAME, apiKey: BOOTSTRAP_KEY },
      project2: { id: p2.projectId, name: PROJECT2_NAME, apiKey: p2.apiKey },
      seeded: null,
      trpc,
      stop: cleanup,
    };
    const count = opts.seed ?? 300;
    if (count > 0) hone.seeded = await seed(hone, count);
    return hone;
  } catch (err) {
    await cleanup();
    throw err;
  }
}

// ---------------------------------------------------------------- fake upstream front

/**
 * In front of a fake upstream: a request whose text contains `FAIL_WITH_<status>` is answered by the
 * fake's error behaviour for that status (its model renamed to `error-<status>` on the way), so a
 * failing call is logged under a real model name. Everything else passes through unchanged.
 */
function startFailingFront(fake: FakeUpstream) {
  return Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    idleTimeout: 0,
    async fetch(req) {
      const url = new URL(req.url);
      let body = await req.text();
      const m = /FAIL_WITH_(\d{3})/.exec(body);
      if (m) {
        const parsed = JSON.parse(body);
        parsed.model = `error-${m[1]}`;
        body = JSON.stringify(parsed);
      }
      const headers = new Headers(req.headers);
      headers.delete("content-length");
      headers.delete("host");
      const upstream = await fetch(`${fake.url}${url.pathname}${url.search}`, { method: req.method, headers, body, signal: req.signal });
      return new Response(upstream.body, { status: upstream.status, headers: upstream.headers });
    },
  });
}

// ---------------------------------------------------------------- seeding

const GATEWAY_MODELS = ["gpt-4o-mini", "gpt-4o", "anthropic:claude-3-5-haiku-latest"] as const;
// A 1x1 PNG, as a data URL.
const PIXEL = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";
const TOOLS = [
  { type: "function", function: { name: "lookup_order", description: "Find an order", parameters: { type: "object", properties: { q: { type: "string" } } } } },
];

const promptId = (i: number) => `p${(i % 5) + 1}`;
const userOf = (i: number) => `u${(i % 20) + 1}`;

/**
 * Seeds `count` calls into the bootstrap project: 70% through the gateway (three models over both
 * fakes; some failing 4xx/5xx, some answered with tool calls, some carrying images, some streamed,
 * a few cache hits), 20% through /report, 10% through /report-anthropic, tagged prompt_id p1..p5 and
 * user u1..u20. Then a few logs in project 2. Waits until every call is logged and reads them back.
 */
export async function seed(h: Hone, count: number): Promise<Seeded> {
  const gateway = Math.round(count * 0.7);
  const report = Math.round(count * 0.2);
  const reportAnthropic = count - gateway - report;
  const limit = pLimit(16);
  const post = async (path: string, body: unknown, headers: Record<string, string> = {}, key = h.project.apiKey) => {
    const res = await fetch(`${h.url}/api/v1${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...headers },
      body: JSON.stringify(body),
    });
    await res.arrayBuffer(); // read streams to the end
    return res;
  };
  const cacheCalls = Math.min(6, Math.floor(gateway / 10));
  const plain = gateway - cacheCalls;
  let withImages = 0;
  let toolRequests = 0;
  const unexpected: string[] = [];
  const jobs: Promise<void>[] = [];

  for (let i = 0; i < plain; i++) {
    const model = GATEWAY_MODELS[i % GATEWAY_MODELS.length]!;
    const fail = i % 17 === 5 ? 500 : i % 19 === 7 ? 429 : i % 23 === 11 ? 400 : 0;
    const tools = !fail && i % 7 === 3;
    const image = i % 11 === 4;
    if (image) withImages++;
    if (tools) toolRequests++;
    const text = `Order question #${i}${fail ? ` FAIL_WITH_${fail}` : ""}`;
    const content = image
      ? [
          { type: "text", text },
          { type: "image_url", image_url: { url: PIXEL } },
        ]
      : text;
    const body = {
      model,
      messages: [
        { role: "system", content: "You are a support agent." },
        { role: "user", content },
      ],
      ...(tools ? { tools: TOOLS } : {}),
      ...(i % 5 === 2 ? { stream: true } : {}),
      metadata: { user: userOf(i) },
    };
    jobs.push(
      limit(async () => {
        const res = await post("/chat/completions", body, { "op-tags": JSON.stringify({ prompt_id: promptId(i) }) });
        if (res.status !== (fail || 200)) unexpected.push(`gateway #${i} ${model}: ${res.status}`);
      }),
    );
  }
  for (let i = 0; i < report; i++) {
    const model = i % 2 ? "gpt-4o" : "gpt-4o-mini";
    const failed = i % 9 === 4;
    const now = Date.now();
    const body = {
      requestedAt: now - 400 - (i % 50) * 10,
      receivedAt: now,
      statusCode: failed ? 502 : 200,
      ...(failed ? { errorMessage: "Bad gateway at the provider" } : {}),
      reqPayload: { model, messages: [{ role: "user", content: `Reported question #${i}` }], metadata: { prompt_id: promptId(i), user: userOf(i + 3) } },
      respPayload: failed
        ? null
        : {
            id: `chatcmpl-report-${i}`,
            object: "chat.completion",
            created: Math.floor(now / 1000),
            model,
            choices: [{ index: 0, message: { role: "assistant", content: `Reported answer #${i}` }, finish_reason: "stop" }],
            usage: { prompt_tokens: 20 + (i % 7), completion_tokens: 5 + (i % 3), total_tokens: 25 + (i % 7) + (i % 3) },
          },
      tags: { $sdk: "browser-seed" },
    };
    jobs.push(
      limit(async () => {
        const res = await post("/report", body);
        if (res.status !== 200) unexpected.push(`report #${i}: ${res.status}`);
      }),
    );
  }
  for (let i = 0; i < reportAnthropic; i++) {
    const now = Date.now();
    const body = {
      requestedAt: now - 300,
      receivedAt: now,
      statusCode: 200,
      reqPayload: {
        model: "claude-3-5-sonnet-20241022",
        max_tokens: 256,
        system: "Be brief.",
        messages: [{ role: "user", content: `Anthropic question #${i}` }],
      },
      respPayload: {
        id: `msg_seed_${i}`,
        type: "message",
        role: "assistant",
        model: "claude-3-5-sonnet-20241022",
        content: [{ type: "text", text: `Anthropic answer #${i}` }],
        stop_reason: "end_turn",
        stop_sequence: null,
        usage: { input_tokens: 30, output_tokens: 9 },
      },
      metadata: { prompt_id: promptId(i + 1), user: userOf(i + 7) },
    };
    jobs.push(
      limit(async () => {
        const res = await post("/report-anthropic", body);
        if (res.status !== 200) unexpected.push(`report-anthropic #${i}: ${res.status}`);
      }),
    );
  }
  await Promise.all(jobs);
  // Cache: each request once (a miss that writes), then again (hits), in order.
  for (let i = 0; i < cacheCalls; i++) {
    const group = i % 2;
    const body = { model: "gpt-4o-mini", messages: [{ role: "user", content: `Cached question ${group}` }], metadata: { user: userOf(group) } };
    const res = await post("/chat/completions", body, { "op-cache": "readWrite", "op-tags": JSON.stringify({ prompt_id: "p1" }) });
    const expected = i < 2 ? "MISS" : "HIT";
    if (res.status !== 200 || res.headers.get("x-hone-cache") !== expected) {
      unexpected.push(`cache #${i}: ${res.status} ${res.headers.get("x-hone-cache")} (expected ${expected})`);
    }
  }
  if (unexpected.length) throw new Error(`seeding got unexpected answers:\n${unexpected.slice(0, 20).join("\n")}`);

  // Project 2: a few calls of its own, with models and tags project 1 never uses.
  const p2Models = ["gpt-4.1-nano", "gpt-4.1-mini"];
  for (let i = 0; i < 4; i++) {
    const res = await post(
      "/chat/completions",
      { model: p2Models[i % 2], messages: [{ role: "user", content: `Project two question ${i}` }] },
      { "op-tags": JSON.stringify({ prompt_id: `iso-${i % 2}` }) },
      h.project2.apiKey,
    );
    if (res.status !== 200) throw new Error(`project 2 seed call ${i}: ${res.status}`);
  }

  const total = gateway + report + reportAnthropic;
  const logs = await readAllLogs(h, h.project.apiKey, total);
  const p2Logs = await readAllLogs(h, h.project2.apiKey, 4);
  const tally = (key: (l: any) => string | null | undefined) => {
    const t: Tally = {};
    for (const l of logs) {
      const k = key(l);
      if (k != null) t[k] = (t[k] ?? 0) + 1;
    }
    return t;
  };
  const sum = (f: (l: any) => number | null) => logs.reduce((s, l) => s + (f(l) ?? 0), 0);
  const inputTokens = sum((l) => l.inputTokens);
  const outputTokens = sum((l) => l.outputTokens);
  return {
    sent: { gateway, report, reportAnthropic, total },
    logs: logs.length,
    byModel: tally((l) => l.model),
    byStatus: tally((l) => String(l.statusCode)),
    bySource: tally((l) => l.source),
    byPromptId: tally((l) => l.tags?.prompt_id),
    byUser: tally((l) => l.tags?.user),
    cacheHits: logs.filter((l) => l.cacheHit).length,
    toolCalls: toolRequests,
    withImages,
    inputTokens,
    outputTokens,
    totalTokens: inputTokens + outputTokens,
    costUsd: sum((l) => l.costUsd),
    project2: {
      logs: p2Logs.length,
      models: [...new Set(p2Logs.map((l) => l.model as string))],
      tags: [...new Set(p2Logs.map((l) => l.tags?.prompt_id as string))],
    },
  };
}

/** Every log of a key's project via tRPC logs.list, waiting (bounded) until `expected` are there. */
async function readAllLogs(h: Hone, key: string, expected: number): Promise<any[]> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const all: any[] = [];
    let after: string | null = null;
    for (let page = 0; page < 100; page++) {
      const res: any = await h.trpc("logs.list", { first: 200, ...(after ? { after } : {}) }, { key });
      all.push(...res.logs);
      if (!res.hasNextPage) break;
      after = res.endCursor;
    }
    if (all.length >= expected) return all;
    if (Date.now() > deadline) throw new Error(`expected ${expected} logs, found ${all.length} after 20 s`);
    await Bun.sleep(100);
  }
}

// ---------------------------------------------------------------- database

// Every file's server starts on a migrated database: on Postgres a copy of the suite's migrated
// template (test/helpers/db.ts); on PGlite a copy of a data directory a first server migrated (it
// then starts in under half the time a fresh directory takes). Removed after the last file.
const pgliteTemplateKey = Symbol.for("hone.browser.pgliteTemplateDir");
type WithPgliteTemplate = typeof globalThis & { [pgliteTemplateKey]?: Promise<string> };

function pgliteTemplateDir(): Promise<string> {
  const g = globalThis as WithPgliteTemplate;
  g[pgliteTemplateKey] ??= (async () => {
    const dir = mkdtempSync(join(tmpdir(), "hone-browser-template-"));
    removeAtEnd(dir);
    // With the files' own bootstrap key: without one, a first start makes a random key of its own.
    const server = await startServer({ HONE_DATA_DIR: dir, HONE_SECRET_KEY: SECRET_KEY, HONE_BOOTSTRAP_API_KEY: BOOTSTRAP_KEY, HONE_ADMIN_TOKEN: ADMIN_TOKEN });
    const code = await server.stop("SIGTERM");
    if (code !== 0) throw new Error(`the template server exited with ${code}`);
    return dir;
  })();
  return g[pgliteTemplateKey];
}

// ---------------------------------------------------------------- browser

export type Browser = {
  /** The first context (a fresh profile directory). */
  context: BrowserContext;
  /** Another context with its own cookies and storage. */
  newContext(): Promise<BrowserContext>;
  newPage(): Promise<Page>;
  close(): Promise<void>;
};

/** Chromium with CONSOLE.md's flags and a fresh --user-data-dir (removed on close). */
export async function launchBrowser(): Promise<Browser> {
  const userDataDir = mkdtempSync(join(tmpdir(), "hone-chromium-"));
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_FLAGS,
      viewport: { width: 1280, height: 800 },
      timeout: 30_000,
    });
  } catch (err) {
    rmSync(userDataDir, { recursive: true, force: true });
    throw err;
  }
  context.setDefaultTimeout(10_000);
  const others: BrowserContext[] = [];
  return {
    context,
    async newContext() {
      const c = await context.browser()!.newContext({ viewport: { width: 1280, height: 800 } });
      c.setDefaultTimeout(10_000);
      others.push(c);
      return c;
    },
    async newPage() {
      const blank = context.pages().find((p) => p.url() === "about:blank");
      return blank ?? context.newPage();
    },
    async close() {
      for (const c of others) await c.close().catch(() => {});
      await context.close().catch(() => {});
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

/** A full-page PNG at test/browser/screenshots/<name>.png. */
export async function shot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const path = join(SCREENSHOTS, `${name}.png`);
  // Passing notifications ("Entry saved") would cover the page in every picture.
  await page.screenshot({ path, fullPage: true, style: ".mantine-Notifications-root { display: none !important; }" });
  return path;
}

// ---------------------------------------------------------------- console helpers

/** Opens the console signed out and signs in with `key` through the form; waits for the shell. */
export async function signIn(page: Page, url: string, key: string): Promise<void> {
  await page.goto(url);
  await page.getByLabel("API key").fill(key);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await page.getByRole("button", { name: "Sign out" }).waitFor();
}

/** A tRPC query from inside the page, as the console sends it (session cookie + console header). */
export async function pageQuery(page: Page, path: string, input?: unknown): Promise<{ status: number; body: any }> {
  return page.evaluate(
    async ({ path, input }) => {
      const qs = input === undefined ? "" : `?input=${encodeURIComponent(JSON.stringify(input))}`;
      const res = await fetch(`/trpc/${path}${qs}`, { headers: { "x-hone-console": "1" } });
      return { status: res.status, body: await res.json() };
    },
    { path, input },
  );
}

/**
 * Reports one chat call (POST /report) with this request and answer, and waits until its log can
 * be listed: its id. The answer's `id` names the log (its completion id).
 */
export async function reportLog(hone: Hone, call: { reqPayload: unknown; respPayload: { id: string } & Record<string, unknown> }): Promise<string> {
  const now = Date.now();
  const res = await fetch(`${hone.url}/api/v1/report`, {
    method: "POST",
    headers: { authorization: `Bearer ${hone.project.apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({ requestedAt: now - 500, receivedAt: now, statusCode: 200, ...call }),
  });
  if (res.status !== 200) throw new Error(`report answered ${res.status}: ${await res.text()}`);
  const [found] = await waitForLogs(hone, { completionId: call.respPayload.id }, 1);
  return found.id;
}

/** The project's logs matching `filter` (up to 200), once there are at least `n`: the log writer stores them a moment after the call. */
export async function waitForLogs(hone: Hone, filter: Record<string, unknown>, n: number, timeoutMs = 15_000): Promise<any[]> {
  const page = await waitFor(() => hone.trpc<{ logs: any[] }>("logs.list", { filter, first: 200 }), {
    until: (p) => p.logs.length >= n,
    timeoutMs,
    message: (p) => `expected ${n} logs for ${JSON.stringify(filter)}, got ${p?.logs.length ?? "none"}`,
  });
  return page.logs;
}

const AXE_SOURCE = resolve(import.meta.dir, "../../node_modules/axe-core/axe.min.js");

export type A11yViolation = { id: string; impact: string; help: string; nodes: string[] };

/**
 * axe-core's check of the page as it is now (WCAG 2 A and AA rules), keeping the serious and
 * critical violations: what the console must have none of, in light and dark.
 */
export async function a11yViolations(page: Page): Promise<A11yViolation[]> {
  // Evaluated through the debugging protocol, which the console's CSP (no inline scripts) does not govern.
  if (!(await page.evaluate(() => "axe" in window))) await page.evaluate(await Bun.file(AXE_SOURCE).text());
  return page.evaluate(async () => {
    // Colours are measured once transitions (a dialog fading in, a button's hover) have ended: a
    // half-faded button fails contrast it passes when shown. Infinite ones (loaders) are not waited for.
    const finite = document.getAnimations().filter((a) => a.effect?.getComputedTiming().endTime !== Number.POSITIVE_INFINITY);
    await Promise.race([Promise.allSettled(finite.map((a) => a.finished)), new Promise((r) => setTimeout(r, 3000))]);
    const axe = (
      window as unknown as {
        axe: {
          run(ctx: Document, opts: unknown): Promise<{ violations: { id: string; impact: string | null; help: string; nodes: { target: string[] }[] }[] }>;
        };
      }
    ).axe;
    const result = await axe.run(document, { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] }, resultTypes: ["violations"] });
    return result.violations
      .filter((v) => v.impact === "serious" || v.impact === "critical")
      .map((v) => ({ id: v.id, impact: v.impact ?? "", help: v.help, nodes: v.nodes.slice(0, 5).map((n) => n.target.join(" ")) }));
  });
}

/** Switches the console's theme (it keeps the choice in localStorage) and reloads the page. */
export async function setColorScheme(page: Page, scheme: "light" | "dark"): Promise<void> {
  await page.evaluate((s) => localStorage.setItem("hone-color-scheme", s), scheme);
  await page.reload();
}

/** A page in a new browser context, signed in with the project's key (at `viewport` when given). */
export async function signedInPage(
  browser: Browser,
  hone: Hone,
  viewport?: { width: number; height: number },
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext();
  const page = await context.newPage();
  if (viewport) await page.setViewportSize(viewport);
  await signIn(page, hone.url, hone.project.apiKey);
  return { context, page };
}

/**
 * Clicks `button` and waits for the dialog it opens. (Clicks were once lost on the dataset page:
 * its actions moved aside when the dataset arrived, so a click aimed at one landed beside it. They
 * no longer move, which datasets.browser.ts checks; a click is not repeated here, so a page that
 * loses one fails its test.)
 */
export async function openDialog(page: Page, button: string, dialog: string): Promise<Locator> {
  const d = page.getByRole("dialog", { name: dialog });
  await page.getByRole("button", { name: button }).click();
  await d.waitFor({ timeout: 10_000 });
  return d;
}

/** For afterAll: closes the browser and stops Hone; either is unset when beforeAll failed early. */
export async function closeAll(browser: Browser | undefined, hone: Hone | undefined): Promise<void> {
  await browser?.close();
  await hone?.stop();
}
