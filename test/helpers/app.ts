import { settleResponseSaves } from "../../src/domain/protocols";
import { closeSpanExport } from "../../src/domain/calls";
import { createApp, type App } from "../../src/app";
import { loadConfig, type Config } from "../../src/core/config";
import { systemCtx } from "../../src/domain/context";
import { createDeps } from "../../src/compose";
import type { Deps } from "../../src/domain/deps";
import OpenAI from "openai";
import { createProject, setProviderKey } from "../../src/domain/projects";
import { createLogger } from "../../src/core/logger";
import { createTestDatabase, type TestDatabase } from "./db";

export type TestProject = { projectId: string; apiKey: string };

export type TestApp = {
  app: App;
  deps: Deps;
  db: TestDatabase;
  /** Every line the server logged, for assertions on logging. */
  logLines: string[];
  project: TestProject;
  createProject(name?: string): Promise<TestProject>;
  /** In-process request through app.handle. `body` objects are sent as JSON, strings as they are. */
  request(method: string, path: string, opts?: { body?: unknown; key?: string | null; headers?: Record<string, string> }): Promise<Response>;
  close(): Promise<void>;
};

export function testConfig(env: Record<string, string> = {}): Config {
  // The tests of OpenAI fine-tuning go on past OpenAI's end date; the date's own test sets it back.
  return loadConfig({ HONE_DATA_DIR: "memory://", HONE_LOG_LEVEL: "info", HONE_OPENAI_FINE_TUNING_ENDS_ON: "9999-12-31", ...env });
}

export async function createTestApp(opts: { env?: Record<string, string>; deps?: Partial<Deps> } = {}): Promise<TestApp> {
  const db = await createTestDatabase();
  const logLines: string[] = [];
  const config = testConfig(opts.env);
  const deps = createDeps({
    config,
    database: db.database,
    logger: createLogger("info", (line) => logLines.push(line)),
    secretKey: crypto.getRandomValues(new Uint8Array(32)),
    ...opts.deps,
  });
  const app = createApp(deps, { checkResponses: true });
  const makeProject = async (name = "test") => {
    const p = await createProject(systemCtx(deps, "test"), { name });
    return { projectId: p.projectId, apiKey: p.apiKey };
  };
  const project = await makeProject();
  const request: TestApp["request"] = (method, path, o = {}) => {
    const headers: Record<string, string> = { ...o.headers };
    const key = o.key === undefined ? project.apiKey : o.key;
    if (key !== null) headers.authorization = `Bearer ${key}`;
    let body: string | undefined;
    if (o.body !== undefined) {
      body = typeof o.body === "string" ? o.body : JSON.stringify(o.body);
      headers["content-type"] ??= "application/json";
    }
    return app.handle(new Request(`http://localhost${path}`, { method, headers, body }));
  };
  return {
    app,
    deps,
    db,
    logLines,
    project,
    createProject: makeProject,
    request,
    close: async () => {
      await settleResponseSaves(deps);
      await closeSpanExport(deps.config);
      await db.drop();
    },
  };
}

/** Starts the app on a real port (Bun.serve) for clients that speak HTTP. */
export function serve(app: App): { url: string; stop(): Promise<void> } {
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    // As src/index.ts sets it with the default limits (HONE_MAX_IMPORT_BYTES, 1 GiB): Hone, not Bun, answers a body too large.
    maxRequestBodySize: 1024 ** 3 + 1024,
    fetch: (r, s) => app.handle(r, s.requestIP(r)?.address, () => s.timeout(r, 0)),
  });
  return { url: `http://127.0.0.1:${server.port}`, stop: () => server.stop(true) };
}

export const userAssistant = (q = "What is 2+2?", a = "4") => ({
  messages: [
    { role: "user" as const, content: q },
    { role: "assistant" as const, content: a },
  ],
});

/** Stores a provider key for a project of the test app (the first project by default). */
export async function storeProviderKey(t: TestApp, provider: "openai" | "anthropic" | "gemini" | "together", apiKey: string, projectId = t.project.projectId) {
  await setProviderKey({ ...systemCtx(t.deps, "test"), projectId }, { provider, apiKey });
}

/** The official openai SDK pointed at a served Hone, without retries (tests assert first answers). */
export function openAiClient(serverUrl: string, apiKey: string): OpenAI {
  return new OpenAI({ apiKey, baseURL: `${serverUrl}/api/v1`, maxRetries: 0 });
}
