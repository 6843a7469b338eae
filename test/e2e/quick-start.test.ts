import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createMigratedPostgresDatabase, TEST_DATABASE_URL } from "../helpers/db";
import { type FakeUpstream, startFakeOpenAI } from "../helpers/fake-upstreams";
import { baseEnv, killStartedServers, ROOT, type RunningServer, startServer } from "../helpers/process";
import { waitFor } from "../helpers/wait-for";
import type { RestOutput } from "../helpers/rest";

// README.md's quick start and "The loop in five commands", run by bash exactly as written against a
// real server process (on this suite's database) and a fake OpenAI. Only what a reader substitutes
// is substituted: the printed API key, their provider key, and the server's address.

const QUICK_START = "## Quick start: a logged, cached, judged completion";
const LOOP = "## The loop in five commands";
const PROVIDER_KEY = "sk-test-provider-key-0001";
const SCRIPT_TIMEOUT_MS = 60_000;

/** The ```sh blocks of the README section under `heading` (up to the next `## ` heading). */
function shBlocks(readme: string, heading: string): string[] {
  const lines = readme.split("\n");
  const start = lines.findIndex((l) => l.trim() === heading);
  if (start < 0) throw new Error(`README.md has no heading "${heading}": the quick-start test cannot run it`);
  const rest = lines.slice(start + 1);
  const end = rest.findIndex((l) => /^## /.test(l));
  const section = (end < 0 ? rest : rest.slice(0, end)).join("\n");
  return [...section.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
}

function block(readme: string, heading: string, index: number, count: number): string {
  const blocks = shBlocks(readme, heading);
  if (blocks.length !== count) throw new Error(`README.md: expected ${count} \`\`\`sh block(s) under "${heading}", found ${blocks.length}`);
  const text = blocks[index]!;
  if (!text.trim()) throw new Error(`README.md: the \`\`\`sh block under "${heading}" is empty`);
  return text;
}

/** Replaces every `from` with `to`, failing when the README no longer has `from` (it must not silently run unsubstituted). */
function substitute(text: string, from: string, to: string, what: string): string {
  if (!text.includes(from)) throw new Error(`README.md quick start: "${from}" (${what}) not found; update this test`);
  return text.replaceAll(from, to);
}

/** Values written one after another (curl -s prints no newline): parses each top-level JSON value. */
function jsonValues(text: string): unknown[] {
  const out: unknown[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"' && depth > 0) inString = true;
    else if (c === "{" || c === "[") {
      if (depth === 0) start = i;
      depth++;
    } else if ((c === "}" || c === "]") && depth > 0) {
      depth--;
      if (depth === 0) out.push(JSON.parse(text.slice(start, i + 1)));
    }
  }
  return out;
}

type Run = { code: number | null; stdout: string; stderr: string; timedOut: boolean };

async function bash(script: string, cwd: string, timeoutMs = SCRIPT_TIMEOUT_MS): Promise<Run> {
  const proc = Bun.spawn(["bash", "-euo", "pipefail", "-c", script], { cwd, env: baseEnv({}), stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    proc.kill("SIGKILL");
  }, timeoutMs);
  try {
    const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    return { code: timedOut ? null : code, stdout, stderr, timedOut };
  } finally {
    clearTimeout(timer);
  }
}

const show = (label: string, r: Run, extra = "") =>
  `${label}: exit ${r.timedOut ? `(killed after ${SCRIPT_TIMEOUT_MS} ms)` : r.code}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}${extra}`;

const onPostgres = Boolean(TEST_DATABASE_URL);
let workDir: string;
let dropDb: (() => Promise<void>) | undefined;
let fake: FakeUpstream;
let server: RunningServer;
let key = "";
let quickStart = "";
let loop = "";

beforeAll(async () => {
  // Read and check the README first: a missing block fails here, never as an empty script that passes.
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  quickStart = block(readme, QUICK_START, 1, 2); // the first block installs and starts Hone: not run
  loop = block(readme, LOOP, 0, 1);

  const jq = Bun.spawnSync(["which", "jq"], { env: baseEnv({}) });
  if (jq.exitCode !== 0) throw new Error("jq is not installed: the README's quick start needs it (apt-get install -y jq)");

  workDir = mkdtempSync(join(tmpdir(), "hone-quick-start-"));
  fake = startFakeOpenAI({ apiKey: PROVIDER_KEY });
  let env: Record<string, string> = { OPENAI_BASE_URL: `${fake.url}/v1` };
  if (onPostgres) {
    const db = await createMigratedPostgresDatabase();
    dropDb = db.drop;
    env = { ...env, DATABASE_URL: db.url, HONE_SECRET_KEY: Buffer.alloc(32, 9).toString("base64") };
  } else {
    env = { ...env, HONE_DATA_DIR: join(workDir, "data") };
  }
  server = await startServer(env, 60_000);
  // The first start prints the default project's key, as the quick start says.
  const m = /(hone_sk_[A-Za-z0-9]{20,})/.exec(server.output());
  if (!m) throw new Error(`the first start printed no hone_sk_ key:\n${server.output()}`);
  key = m[1]!;
}, 90_000);

afterAll(async () => {
  await server?.stop().catch(() => {});
  killStartedServers();
  await fake?.stop();
  await dropDb?.();
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

/** What a reader types: their key, their provider key, and where their server listens. */
function asTyped(text: string): string {
  let s = text;
  if (s.includes("export KEY=")) s = substitute(s, "export KEY=hone_sk_...", `export KEY=${key}`, "the printed API key");
  if (s.includes("setProviderKey")) s = substitute(s, "sk-...", PROVIDER_KEY, "the provider key");
  return substitute(s, "127.0.0.1:3000", new URL(server.url).host, "the server's address");
}

/** A GraphQL answer: its data as the caller types it, and its errors. */
type GqlBody<T> = { data?: T | null; errors?: unknown };
type Completion = RestOutput<"POST /chat/completions">;
type LogEdges<N> = { logs: { edges: { node: N }[] } };

const gql = async <T>(query: string, variables: Record<string, unknown> = {}): Promise<GqlBody<T>> => {
  const res = await fetch(`${server.url}/graphql`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ query, variables }),
  });
  return (await res.json()) as GqlBody<T>;
};

/** The lines of step `n` of a block (from its "# n." comment to the next comment line), as typed. */
function step(text: string, n: number): string {
  const lines = asTyped(text).split("\n");
  const from = lines.findIndex((l) => l.startsWith(`# ${n}.`));
  if (from < 0) throw new Error(`README.md: no step "# ${n}." in the block`);
  const to = lines.findIndex((l, i) => i > from && l.startsWith("#"));
  return lines.slice(from, to < 0 ? undefined : to).join("\n");
}

const chatCalls = () => fake.requests.filter((r) => r.path === "/v1/chat/completions");

describe("README quick start, run as written", () => {
  test("the quick start and the loop in five commands run in bash against a real server", async () => {
    const quickFile = join(workDir, "quick-start.sh");
    const loopFile = join(workDir, "loop.sh");
    writeFileSync(quickFile, asTyped(quickStart));
    writeFileSync(loopFile, asTyped(loop));
    // One shell, as a reader's: the loop uses the quick start's KEY, HONE and CRIT. Each block's
    // output goes to its own file so the steps can be told apart.
    const run = await bash(`{ source ${quickFile}; } > quick.out\n{ source ${loopFile}; } > loop.out\necho "CRIT=$CRIT DS=$DS"`, workDir);
    const read = (f: string) => {
      try {
        return readFileSync(join(workDir, f), "utf8");
      } catch {
        return "";
      }
    };
    const quickOut = read("quick.out");
    const loopOut = read("loop.out");
    const context = `\n--- quick start output\n${quickOut}\n--- loop output\n${loopOut}\n--- server output (tail)\n${server.output().slice(-4000)}`;
    if (run.code !== 0) throw new Error(show("the README's blocks failed", run, context));

    try {
      const vars = /CRIT=(\S*) DS=(\S*)/.exec(run.stdout);
      const [crit, ds] = [vars?.[1] ?? "", vars?.[2] ?? ""];

      // Quick start: 1. the provider key stored; 2. a criterion (its id kept by jq).
      const httpAt = quickOut.indexOf("HTTP/1.1 ");
      expect(httpAt).toBeGreaterThan(0);
      const [stored] = jsonValues(quickOut.slice(0, httpAt));
      expect(stored).toEqual({ data: { setProviderKey: { provider: "openai", last4: PROVIDER_KEY.slice(-4) } } });
      expect(crit).toMatch(/^\S+$/);
      expect(crit).not.toBe("null");
      const criteria = await gql<{ criterion: unknown }>("query ($id: ID!) { criterion(id: $id) { id name } }", { id: crit });
      expect(criteria.data?.criterion).toEqual({ id: crit, name: "concise" });

      // 3. the completion: 200, a cache miss, 3 choices each judged by the criterion.
      const response = quickOut.slice(httpAt);
      const headEnd = response.indexOf("\r\n\r\n");
      const head = response.slice(0, headEnd);
      expect(head).toMatch(/^HTTP\/1\.1 200/);
      expect(head).toMatch(/^x-hone-cache: MISS\r?$/im);
      type LoggedCall = { model: string; statusCode: number; cacheHit: boolean; metadata: Record<string, unknown> | null };
      const [completion, logs] = jsonValues(response.slice(headEnd + 4)) as [Completion, GqlBody<LogEdges<LoggedCall>>];
      expect(completion.choices).toHaveLength(3);
      for (const choice of completion.choices) {
        expect(choice.message.content).toStartWith("echo: Capital of France?");
        expect(choice.criteria_results).toBeDefined();
        expect(JSON.stringify(choice.criteria_results)).toContain(crit);
      }

      // 4. the log, listed as written (the block waits a second for the log writer's batch).
      expect(logs.errors).toBeUndefined();
      const edges = logs.data!.logs.edges;
      expect(edges.some((e) => e.node.statusCode === 200 && e.node.metadata?.prompt_id === "capital")).toBe(true);

      // Loop 1: the tagged production call answered, and was logged with its tag.
      const [supportReply] = jsonValues(loopOut) as [Completion];
      expect(supportReply.choices[0]!.message.content).toBe("echo: Where is my order?");
      const tagged = await gql<LogEdges<Pick<LoggedCall, "statusCode" | "metadata">>>("{ logs(first: 50) { edges { node { statusCode metadata } } } }");
      expect(tagged.data!.logs.edges.some((e) => e.node.metadata?.prompt_id === "support" && e.node.statusCode === 200)).toBe(true);

      // Loop 2: importLogsToDataset made the "support" dataset (its id kept by jq as DS).
      expect(ds).toMatch(/^\S+$/);
      expect(ds).not.toBe("null");
      const datasets = (await (
        await fetch(`${server.url}/api/v1/datasets`, { headers: { authorization: `Bearer ${key}` } })
      ).json()) as RestOutput<"GET /datasets">;
      const support = datasets.data.find((d) => d.id === ds);
      expect(support?.name).toBe("support");
      expect(support?.dataset_entry_count).toBeGreaterThan(0);
      // Loops 3-5 answer (errors are expected here: too few entries to fine-tune, no model deployed).
      expect(jsonValues(loopOut).length).toBe(4);

      // The provider got the calls, with the stored key: 3 samples in one call, the judge calls, loop 1.
      const calls = chatCalls();
      expect(calls.some((c) => c.body.n === 3 && JSON.stringify(c.body.messages).includes("Capital of France?"))).toBe(true);
      expect(calls.filter((c) => c.body.tools?.[0]?.function?.name === "record_verdict").length).toBeGreaterThanOrEqual(3);
      expect(calls.some((c) => JSON.stringify(c.body.messages).includes("Where is my order?"))).toBe(true);
      expect(calls.every((c) => c.headers.authorization === `Bearer ${PROVIDER_KEY}`)).toBe(true);

      // "(run it again: x-hone-cache: HIT, and the provider is not called)": step 3's lines, again.
      // The first run's judge calls are made after its answer: counted from once they have all
      // landed (no new request for a quarter of a second), or a late one would count as the second run's.
      let seen = -1;
      await waitFor(
        async () => {
          const now = fake.requests.length;
          const settled = now === seen;
          seen = now;
          if (!settled) await Bun.sleep(250);
          return settled;
        },
        { timeoutMs: 15_000, message: "the provider's calls to settle" },
      );
      const before = fake.requests.length;
      const hone = /^export KEY=\S+ (HONE=\S+)/m.exec(asTyped(quickStart))?.[1];
      expect(hone).toBeDefined();
      const again = await bash(`export KEY=${key} ${hone} CRIT=${crit}\n${step(quickStart, 3)}`, workDir);
      if (again.code !== 0) throw new Error(show("step 3 run again", again));
      expect(again.stdout).toMatch(/^HTTP\/1\.1 200/);
      expect(again.stdout).toMatch(/^x-hone-cache: HIT\r?$/im);
      expect((jsonValues(again.stdout)[0] as Completion).choices).toHaveLength(3);
      // The model is not called again. The criterion's judge is: a cached answer is judged afresh
      // (one judge call per choice), so "the provider is not called" holds for the completion only.
      const after = fake.requests.slice(before);
      expect(after.filter((r) => r.body?.tools?.[0]?.function?.name !== "record_verdict")).toEqual([]);
      expect(after).toHaveLength(3);
      // And it is logged as a cache hit.
      await waitFor(
        async () =>
          (await gql<LogEdges<Pick<LoggedCall, "cacheHit">>>("{ logs(first: 50) { edges { node { cacheHit } } } }")).data!.logs.edges.some(
            (e) => e.node.cacheHit,
          ),
        {
          message: "a cache-hit log",
        },
      );
    } catch (e) {
      console.error(show("the README's blocks", run, context));
      throw e;
    }
  }, 150_000);
});
