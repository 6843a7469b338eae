import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../../src/db/client";
import { createEmptyPostgresDatabase, TEST_DATABASE_URL } from "../helpers/db";
import { startFakeOpenAI } from "../helpers/fake-upstreams";
import { killStartedServers, runCli, startServer } from "../helpers/process";
import type { RestOutput } from "../helpers/rest";
import { waitFor } from "../helpers/wait-for";

// The real server process, on the database this suite runs on: an embedded data directory, or a
// fresh database on the Postgres server when DATABASE_URL is set.
const onPostgres = Boolean(TEST_DATABASE_URL);
let env: Record<string, string>;
let dataDir: string;
let dropDb: (() => Promise<void>) | undefined;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "hone-e2e-"));
  if (onPostgres) {
    const db = await createEmptyPostgresDatabase();
    dropDb = db.drop;
    env = { DATABASE_URL: db.url, HONE_SECRET_KEY: Buffer.alloc(32, 7).toString("base64") };
  } else {
    env = { HONE_DATA_DIR: dataDir };
  }
});
afterAll(async () => {
  killStartedServers();
  rmSync(dataDir, { recursive: true, force: true });
  await dropDb?.();
});

const auth = (key: string) => ({ authorization: `Bearer ${key}`, "content-type": "application/json" });
const entry = {
  messages: [
    { role: "user", content: "hi" },
    { role: "assistant", content: "hello" },
  ],
};

/** The body of a chunked HTTP/1.1 answer, its chunks joined. */
function dechunk(text: string): string {
  let out = "";
  let at = 0;
  for (;;) {
    const lineEnd = text.indexOf("\r\n", at);
    const size = Number.parseInt(text.slice(at, lineEnd), 16);
    if (!size) return out;
    out += text.slice(lineEnd + 2, lineEnd + 2 + size);
    at = lineEnd + 2 + size + 2;
  }
}

describe("the server process", () => {
  let firstKey = "";
  let datasetId = "";

  test("first start creates the default project and prints its key once", async () => {
    const s = await startServer(env);
    try {
      const m = /(hone_sk_[A-Za-z0-9]{40})/.exec(s.output());
      expect(m).not.toBeNull();
      firstKey = m![1]!;
      const res = await fetch(`${s.url}/api/v1/datasets`, { method: "POST", headers: auth(firstKey), body: JSON.stringify({ name: "kept" }) });
      expect(res.status).toBe(200);
      datasetId = ((await res.json()) as RestOutput<"POST /datasets">).id;
      const add = await fetch(`${s.url}/api/v1/datasets/${datasetId}/entries`, {
        method: "POST",
        headers: auth(firstKey),
        body: JSON.stringify({ entries: [entry, entry, entry] }),
      });
      expect(((await add.json()) as RestOutput<"POST /datasets/:datasetId/entries">).entries_created).toBe(3);

      // The CLI works while the server runs: on Postgres alongside it, on the embedded database
      // (one process only) by handing the command to the server through its data directory.
      const cli = await runCli(["projects", "create", "--name", "alongside"], env);
      expect(cli.stderr).toBe("");
      expect(cli.code).toBe(0);
      const created = JSON.parse(cli.stdout) as { projectId: string; apiKey: string };
      expect(created.apiKey).toMatch(/^hone_sk_/);
      // The new project's key works against the running server at once, and sees its own project.
      const own = await fetch(`${s.url}/api/v1/datasets`, { headers: auth(created.apiKey) });
      expect(own.status).toBe(200);
      expect(((await own.json()) as RestOutput<"GET /datasets">).data).toEqual([]);
      // A command's validation error comes back as the CLI's error, not a success.
      const bad = await runCli(["keys", "create", "--project", "proj_nope"], env);
      expect(bad.code).toBe(1);
      expect(JSON.parse(bad.stderr).error).toMatch(/not found/i);
      if (!onPostgres) {
        // The control endpoint answers only to the token in the data directory.
        const control = JSON.parse(readFileSync(join(dataDir, "control.json"), "utf8")) as { url: string; token: string };
        const forged = await fetch(`${s.url}/internal/control`, {
          method: "POST",
          headers: { authorization: "Bearer not-the-token", "content-type": "application/json" },
          body: JSON.stringify({ command: "projects create", options: { name: "forged" } }),
        });
        expect(forged.status).toBe(401);
        expect(control.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
        expect(statSync(join(dataDir, "control.json")).mode & 0o777).toBe(0o600);
      }
    } finally {
      expect(await s.stop()).toBe(0);
    }
    // Each request logged as one JSON line, and the key is never among them.
    const lines = s
      .output()
      .split("\n")
      .filter((l) => l.startsWith("{"));
    expect(lines.some((l) => JSON.parse(l).msg === "request")).toBe(true);
    expect(lines.join("\n")).not.toContain(firstKey);
  });

  test("SIGTERM lets an in-flight request finish, then closes the database and exits 0", async () => {
    const s = await startServer(env);
    expect(s.output()).not.toContain("hone_sk_"); // not printed again
    // A raw request, so that the test knows when the server has it: Bun answers "100 Continue" to
    // `Expect: 100-continue` once the request is being handled. Its body is sent in two pieces.
    const first = '{"entries": [';
    const rest = `${JSON.stringify(entry)}]}`;
    let received = "";
    let closed = false;
    const decoder = new TextDecoder();
    const url = new URL(s.url);
    const socket = await Bun.connect({
      hostname: url.hostname,
      port: Number(url.port),
      socket: {
        data(_socket, data) {
          received += decoder.decode(data, { stream: true });
        },
        close() {
          closed = true;
        },
        error() {},
      },
    });
    socket.write(
      `POST /api/v1/datasets/${datasetId}/entries HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${firstKey}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(first + rest)}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n`,
    );
    await waitFor(() => received.startsWith("HTTP/1.1 100"), { message: "the server to take the request" });
    socket.write(first);
    s.proc.kill("SIGTERM");
    await waitFor(() => s.output().includes('"msg":"shutting down"'), { message: "the server to start shutting down" });
    socket.write(rest);
    await waitFor(() => closed, { message: "the answer to the in-flight request" });
    const answer = received.slice(received.lastIndexOf("HTTP/1.1 "));
    expect(answer).toStartWith("HTTP/1.1 200");
    const head = answer.slice(0, answer.indexOf("\r\n\r\n"));
    const payload = answer.slice(head.length + 4);
    const json = /^transfer-encoding: chunked/im.test(head) ? dechunk(payload) : payload;
    expect((JSON.parse(json) as RestOutput<"POST /datasets/:datasetId/entries">).entries_created).toBe(1);
    expect(await s.proc.exited).toBe(0);
    expect(s.output()).toContain('"msg":"stopped"');
    if (!onPostgres) {
      expect(existsSync(join(dataDir, "hone.lock"))).toBe(false);
      expect(existsSync(join(dataDir, "control.json"))).toBe(false);
    }
  });

  test("after a restart the data is still there; a bootstrap key is registered idempotently", async () => {
    const bootstrapKey = "hone_sk_bootstrapbootstrapbootstrap0001";
    for (let round = 0; round < 2; round++) {
      const s = await startServer({ ...env, HONE_BOOTSTRAP_API_KEY: bootstrapKey });
      try {
        for (const key of [firstKey, bootstrapKey]) {
          const res = await fetch(`${s.url}/api/v1/datasets`, { headers: auth(key) });
          expect(res.status).toBe(200);
          const list = (await res.json()) as RestOutput<"GET /datasets">;
          expect(list.data.find((d) => d.id === datasetId)?.dataset_entry_count).toBe(4);
        }
      } finally {
        expect(await s.stop()).toBe(0);
      }
    }
  });

  test("the hone CLI prints JSON and applies migrations", async () => {
    const created = await runCli(["projects", "create", "--name", "cli-made"], env);
    expect(created.code).toBe(0);
    const p = JSON.parse(created.stdout);
    expect(p.projectId).toMatch(/^prj_/);
    expect(p.apiKey).toMatch(/^hone_sk_[A-Za-z0-9]{40}$/);

    const key = await runCli(["keys", "create", "--project", p.projectId], env);
    expect(key.code).toBe(0);
    const k = JSON.parse(key.stdout);
    expect(k.apiKey).toMatch(/^hone_sk_/);
    expect(k.apiKey).not.toBe(p.apiKey);

    expect(JSON.parse((await runCli(["migrate"], env)).stdout)).toEqual({ migrated: true });

    const missing = await runCli(["keys", "create", "--project", "prj_nope"], env);
    expect(missing.code).toBe(1);
    expect(JSON.parse(missing.stderr.split("\n")[0]!).error).toBe("Project prj_nope not found");
    const usage = await runCli(["projects", "delete"], env);
    expect(usage.code).toBe(2);

    // Keys made by the CLI work against the server.
    const s = await startServer(env);
    try {
      const res = await fetch(`${s.url}/api/v1/datasets`, { headers: auth(k.apiKey) });
      expect(res.status).toBe(200);
      expect(((await res.json()) as RestOutput<"GET /datasets">).data).toEqual([]);
    } finally {
      await s.stop();
    }
  });
});

describe("the gateway in the server process", () => {
  test("provider keys set by the CLI are used; SIGTERM stores every queued call log before exiting", async () => {
    const fake = startFakeOpenAI({ apiKey: "sk-from-cli-4321" });
    try {
      const projectOut = await runCli(["projects", "create", "--name", "gateway"], env);
      const project = JSON.parse(projectOut.stdout);
      const set = await runCli(["provider-keys", "set", "--project", project.projectId, "--provider", "openai", "--key", "sk-from-cli-4321"], env);
      expect(set.code).toBe(0);
      expect(JSON.parse(set.stdout)).toEqual({ provider: "openai", name: "default", last4: "4321" });
      const badProvider = await runCli(["provider-keys", "set", "--project", project.projectId, "--provider", "nope", "--key", "k".repeat(10)], env);
      expect(badProvider.code).toBe(1);

      const s = await startServer({ ...env, OPENAI_BASE_URL: `${fake.url}/v1` });
      const calls = 25;
      const responses = await Promise.all(
        Array.from({ length: calls }, (_, i) =>
          fetch(`${s.url}/api/v1/chat/completions`, {
            method: "POST",
            headers: auth(project.apiKey),
            body: JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: `call ${i}` }] }),
          }),
        ),
      );
      expect(responses.every((r) => r.status === 200)).toBe(true);
      expect(await s.stop()).toBe(0);
      expect(s.output()).not.toContain("sk-from-cli-4321");

      const database = await openDatabase(
        onPostgres ? { databaseUrl: env.DATABASE_URL!, dataDir: "", dbPoolSize: 1 } : { databaseUrl: undefined, dataDir, dbPoolSize: 1 },
        { owner: "test" },
      );
      try {
        const logs = await database.db.query.requestLogs.findMany({ where: { projectId: project.projectId } });
        expect(logs).toHaveLength(calls);
        expect(logs.every((l) => l.statusCode === 200)).toBe(true);
      } finally {
        await database.close();
      }
    } finally {
      await fake.stop();
    }
  }, 60_000);
});

describe("configuration errors at start", () => {
  test("DATABASE_URL without HONE_SECRET_KEY refuses to start with a clear message", async () => {
    const proc = Bun.spawn(["bun", "src/index.ts"], {
      cwd: join(import.meta.dir, "../.."),
      // The key is checked before any connection is made, so the server need not exist.
      env: { PATH: process.env.PATH!, DATABASE_URL: "postgres://127.0.0.1:1/none", PORT: "0" },
      stdout: "pipe",
      stderr: "pipe",
    });
    expect(await proc.exited).toBe(1);
    expect(await new Response(proc.stderr).text()).toContain("HONE_SECRET_KEY is required with DATABASE_URL");
  });

  test("an invalid setting names the variable and the server does not start", async () => {
    const proc = Bun.spawn(["bun", "src/index.ts"], {
      cwd: join(import.meta.dir, "../.."),
      env: { PATH: process.env.PATH!, PORT: "not-a-port", HONE_DATA_DIR: "memory://" },
      stdout: "pipe",
      stderr: "pipe",
    });
    expect(await proc.exited).toBe(1);
    expect(await new Response(proc.stderr).text()).toContain("PORT");
  });

  test("a spool directory that cannot be used is named, with what to do, and the server does not start", async () => {
    // A file where the directory should be: no process (root or not) can make a directory in it.
    const file = join(tmpdir(), `hone-not-a-dir-${process.pid}`);
    writeFileSync(file, "x");
    try {
      const proc = Bun.spawn(["bun", "src/index.ts"], {
        cwd: join(import.meta.dir, "../.."),
        env: { PATH: process.env.PATH!, PORT: "0", HONE_DATA_DIR: "memory://", HONE_SPOOL_DIR: join(file, "spool") },
        stdout: "pipe",
        stderr: "pipe",
      });
      expect(await proc.exited).toBe(1);
      const err = await new Response(proc.stderr).text();
      expect(err).toContain(`hone: HONE_SPOOL_DIR ${join(file, "spool")} cannot be used for the log spool`);
      expect(err).toContain("HONE_SPOOL_DIR=off");
    } finally {
      rmSync(file, { force: true });
    }
  });
});
