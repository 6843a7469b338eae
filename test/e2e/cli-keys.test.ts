import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createEmptyPostgresDatabase, TEST_DATABASE_URL } from "../helpers/db";
import { killStartedServers, runCli, startServer } from "../helpers/process";

// `hone keys list|create|revoke` against the database this suite runs on (an embedded data
// directory, or a database of its own on the Postgres server).
const onPostgres = Boolean(TEST_DATABASE_URL);
let env: Record<string, string>;
let dataDir: string;
let dropDb: (() => Promise<void>) | undefined;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "hone-cli-keys-"));
  if (onPostgres) {
    const db = await createEmptyPostgresDatabase();
    dropDb = db.drop;
    env = { DATABASE_URL: db.url, HONE_SECRET_KEY: Buffer.alloc(32, 7).toString("base64"), HONE_API_KEY_CACHE_MS: "100" };
  } else {
    env = { HONE_DATA_DIR: dataDir };
  }
});
afterAll(async () => {
  killStartedServers();
  rmSync(dataDir, { recursive: true, force: true });
  await dropDb?.();
});

async function cli(...args: string[]) {
  const r = await runCli(args, env);
  return { ...r, json: r.code === 0 ? JSON.parse(r.stdout) : JSON.parse(r.stderr.split("\n")[0]!) };
}

const status = async (url: string, key: string) => (await fetch(`${url}/api/v1/datasets`, { headers: { authorization: `Bearer ${key}` } })).status;

describe("hone keys", () => {
  test("list, create (named) and revoke print JSON; a revoked key is refused by the server", async () => {
    const project = (await cli("projects", "create", "--name", "cli-keys")).json;

    const created = await cli("keys", "create", "--project", project.projectId, "--name", "deploy bot");
    expect(created.code).toBe(0);
    const k = created.json;
    expect(k.apiKey).toMatch(/^hone_sk_[A-Za-z0-9]{40}$/);
    expect(k).toEqual({
      apiKey: k.apiKey,
      id: expect.stringMatching(/^key_/),
      name: "deploy bot",
      prefix: `hone_sk_…${k.apiKey.slice(-4)}`,
      scopes: ["gateway", "read", "write"],
      allowedModels: null,
      expiresAt: null,
      metadata: {},
    });

    const listed = await cli("keys", "list", "--project", project.projectId);
    expect(listed.code).toBe(0);
    expect(listed.json.apiKeys).toHaveLength(2);
    expect(listed.json.apiKeys[1]).toEqual({
      id: k.id,
      name: "deploy bot",
      prefix: k.prefix,
      createdAt: expect.any(String),
      lastUsedAt: null,
      revokedAt: null,
      expiresAt: null,
      scopes: ["gateway", "read", "write"],
      allowedModels: null,
      metadata: {},
      // Made by the operator, not a person: the project's (a service key).
      owner: "project",
      createdBy: null,
    });
    expect(listed.stdout).not.toContain(k.apiKey);
    expect(listed.stdout).not.toContain(project.apiKey);

    let s = onPostgres ? await startServer(env) : undefined;
    if (s) expect(await status(s.url, k.apiKey)).toBe(200); // now in the server's cache

    const revoked = await cli("keys", "revoke", "--project", project.projectId, "--key-id", k.id);
    expect(revoked.code).toBe(0);
    expect(revoked.json.id).toBe(k.id);
    expect(revoked.json.revokedAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    const again = await cli("keys", "revoke", "--project", project.projectId, "--key-id", k.id);
    expect(again.json.revokedAt).toBe(revoked.json.revokedAt);

    if (s)
      await Bun.sleep(150); // the revoked key stays cached HONE_API_KEY_CACHE_MS (100) in the running server: time must pass
    else s = await startServer(env); // the embedded database allows one process at a time
    try {
      expect(await status(s.url, k.apiKey)).toBe(401);
      expect(await status(s.url, project.apiKey)).toBe(200);
      // The CLI's changes are in the project's audit log, the key's secret not.
      const res = await fetch(`${s.url}/trpc/team.auditLog?input=${encodeURIComponent(JSON.stringify({ first: 50 }))}`, {
        headers: { authorization: `Bearer ${project.apiKey}` },
      });
      const text = await res.text();
      const events = JSON.parse(text).result.data.events as { action: string; transport: string; actor: string }[];
      expect(events.filter((e) => e.transport === "cli").map((e) => e.action)).toEqual([
        "hone keys revoke",
        "hone keys revoke",
        "hone keys create",
        "hone projects create",
      ]);
      expect(text).not.toContain(k.apiKey);
    } finally {
      await s.stop();
    }
  });

  test("a scoped key for an app: gateway only, some models, an expiry and metadata; bad scopes are refused", async () => {
    const project = (await cli("projects", "create", "--name", "cli-scoped")).json;
    const expiresAt = new Date(Date.now() + 30 * 86_400_000).toISOString();
    const made = await cli(
      "keys",
      "create",
      "--project",
      project.projectId,
      "--name",
      "support app",
      "--scopes",
      "gateway",
      "--models",
      "openai:gpt-4o-mini*,anthropic:*",
      "--expires-at",
      expiresAt,
      "--metadata",
      "owner=ann,app=support",
    );
    expect(made.code).toBe(0);
    expect(made.json).toMatchObject({
      scopes: ["gateway"],
      allowedModels: ["openai:gpt-4o-mini*", "anthropic:*"],
      expiresAt,
      metadata: { owner: "ann", app: "support" },
    });
    const bad = await cli("keys", "create", "--project", project.projectId, "--scopes", "admin");
    expect(bad.code).toBe(1);
    expect(JSON.stringify(bad.json)).toContain("scope");
    const past = await cli("keys", "create", "--project", project.projectId, "--expires-at", "2020-01-01");
    expect(past.code).toBe(1);
    expect(JSON.stringify(past.json)).toContain("expiresAt must be in the future");
  });

  test("errors: unknown project, unknown or foreign key id, bad name, missing options", async () => {
    const a = (await cli("projects", "create", "--name", "a")).json;
    const b = (await cli("projects", "create", "--name", "b")).json;
    const bKeys = (await cli("keys", "list", "--project", b.projectId)).json.apiKeys;

    const noProject = await cli("keys", "list", "--project", "prj_nope");
    expect(noProject.code).toBe(1);
    expect(noProject.json.error).toBe("Project prj_nope not found");
    const foreign = await cli("keys", "revoke", "--project", a.projectId, "--key-id", bKeys[0].id);
    expect(foreign.code).toBe(1);
    expect(foreign.json.error).toBe(`API key ${bKeys[0].id} not found`);
    const badName = await cli("keys", "create", "--project", a.projectId, "--name", "x".repeat(101));
    expect(badName.code).toBe(1);
    expect(badName.json.issues[0]).toMatchObject({ path: ["name"], message: "name: must be at most 100 characters" });
    const missing = await runCli(["keys", "revoke", "--project", a.projectId], env);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("missing --key-id");
  });
});
