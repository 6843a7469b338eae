import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createEmptyPostgresDatabase, TEST_DATABASE_URL } from "../helpers/db";
import { killStartedServers, type RunningServer, startServer } from "../helpers/process";
import { waitFor } from "../helpers/wait-for";

// HONE_ROUTES_FILE on the real server process: routes from a YAML file at start, changed on
// SIGHUP, a bad file refused (at start: the server does not start; on SIGHUP: nothing changes).
let env: Record<string, string>;
let dir: string;
let dropDb: (() => Promise<void>) | undefined;
let projectId = "";
let apiKey = "";

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "hone-routes-file-"));
  if (TEST_DATABASE_URL) {
    const db = await createEmptyPostgresDatabase();
    dropDb = db.drop;
    env = { DATABASE_URL: db.url, HONE_SECRET_KEY: Buffer.alloc(32, 5).toString("base64") };
  } else {
    env = { HONE_DATA_DIR: join(dir, "data") };
  }
  // The first start creates the default project: its id goes in the file.
  const first = await startServer(env);
  projectId = /Created project "default" \((prj_[0-9a-f]+)\)/.exec(first.output())![1]!;
  apiKey = /(hone_sk_[A-Za-z0-9]{40})/.exec(first.output())![1]!;
  expect(await first.stop()).toBe(0);
});
afterAll(async () => {
  killStartedServers();
  rmSync(dir, { recursive: true, force: true });
  await dropDb?.();
});

const file = () => join(dir, "routes.yaml");
const yaml = (v1: number, v2: number) => `# kept in git
routes:
  - project: ${projectId}
    slug: support
    stickyTag: user
    groups:
      - targets:
          - { model: "openai:gpt-4o-mini", weight: ${v1}, version: v1 }
          - { model: "anthropic:claude-haiku-4-5", weight: ${v2}, version: v2 }
      - targets:
          - { model: "gemini:gemini-2.5-flash", weight: 100 }
`;
async function weights(s: RunningServer): Promise<{ revision: number; w: number[] }> {
  const res = await fetch(`${s.url}/graphql`, {
    method: "POST",
    headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({ query: `{ route(slug: "support") { revision stickyTag groups { targets { weight } } } }` }),
  });
  const body = (await res.json()) as { data: { route: { revision: number; groups: { targets: { weight: number }[] }[] } } };
  return { revision: body.data.route.revision, w: body.data.route.groups[0]!.targets.map((t) => t.weight) };
}

describe("HONE_ROUTES_FILE", () => {
  test("applied at start, again on SIGHUP; a bad file on SIGHUP changes nothing and says why", async () => {
    writeFileSync(file(), yaml(90, 10));
    const s = await startServer({ ...env, HONE_ROUTES_FILE: file() });
    try {
      expect(s.output()).toContain('"msg":"routes file applied"');
      expect(await weights(s)).toEqual({ revision: 1, w: [90, 10] });

      writeFileSync(file(), yaml(50, 50));
      s.proc.kill("SIGHUP");
      await waitFor(async () => (await weights(s)).revision === 2, { message: "the file's new split" });
      expect((await weights(s)).w).toEqual([50, 50]);

      writeFileSync(file(), yaml(60, 30));
      s.proc.kill("SIGHUP");
      await waitFor(() => s.output().includes("routes file not applied"), { message: "the bad file to be refused" });
      expect(s.output()).toContain("weights of a group must sum to 100");
      expect(await weights(s)).toEqual({ revision: 2, w: [50, 50] });
    } finally {
      expect(await s.stop()).toBe(0);
    }
  }, 60_000);

  test("a bad file stops the start with a message naming the field", async () => {
    writeFileSync(file(), yaml(90, 10).replace("openai:gpt-4o-mini", "hone:no-such-fine-tune"));
    const started = startServer({ ...env, HONE_ROUTES_FILE: file() });
    await expect(started).rejects.toThrow(/routes\.0 \(support\).*groups\.0\.targets\.0\.model: unknown target hone:no-such-fine-tune/);
  }, 60_000);
});
