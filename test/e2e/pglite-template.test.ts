import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../../src/db/client";
import { templateKey } from "../../src/db/pglite-template";
import { killStartedServers, ROOT, runCli, startServer } from "../helpers/process";

// A fresh embedded data directory starts as a copy of the migrated template (src/db/pglite-template.ts):
// made by the first fresh start that had none (or by `bun install`), used by every later one.
const root = mkdtempSync(join(tmpdir(), "hone-template-test-"));
afterAll(() => {
  killStartedServers();
  rmSync(root, { recursive: true, force: true });
});

const dataDir = (name: string) => join(root, "data", name);
const createDataset = (url: string, key: string, name: string) =>
  fetch(`${url}/api/v1/datasets`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ name }),
  });
const keyOf = (out: string) => /(hone_sk_[A-Za-z0-9]{40})/.exec(out)?.[1];

async function withDb<T>(dir: string, fn: (db: Awaited<ReturnType<typeof openDatabase>>) => Promise<T>): Promise<T> {
  const database = await openDatabase({ dataDir: dir, databaseUrl: undefined, dbPoolSize: 1 }, { migrate: false });
  try {
    return await fn(database);
  } finally {
    await database.close();
  }
}
const tableExists = (dir: string, name: string) =>
  withDb(dir, async (d) => {
    const r = (await d.db.execute(`select to_regclass('public.${name}') as t`)) as unknown as { rows?: { t: string | null }[] };
    return (r.rows ?? (r as unknown as { t: string | null }[]))[0]?.t !== null;
  });
const appliedMigrations = (dir: string) =>
  withDb(dir, async (d) => {
    const r = (await d.db.execute("select count(*)::int as n from drizzle.__drizzle_migrations")) as unknown as { rows: { n: number }[] };
    return r.rows[0]!.n;
  });
const migrationFiles = () => readdirSync(join(ROOT, "schema/migrations")).filter((f) => !f.startsWith("meta") && !f.startsWith(".")).length;

describe("the embedded database's migrated template", () => {
  const templates = join(root, "templates");
  const key = templateKey();

  test("the first fresh start makes the template; a later fresh start is a copy of it", async () => {
    const first = await startServer({ HONE_DATA_DIR: dataDir("first"), HONE_PGLITE_TEMPLATE_DIR: templates });
    const firstKey = keyOf(first.output());
    expect(firstKey).toBeDefined();
    expect((await createDataset(first.url, firstKey!, "only in first")).status).toBe(200);
    expect(await first.stop()).toBe(0);
    expect(existsSync(join(templates, key, "ready"))).toBe(true);
    expect(await appliedMigrations(dataDir("first"))).toBe(migrationFiles());

    // Mark the template, so that a copy can be told from a database made by initdb.
    await withDb(join(templates, key), async (d) => {
      await d.db.execute("create table template_probe (x int)");
    });
    const second = await startServer({ HONE_DATA_DIR: dataDir("second"), HONE_PGLITE_TEMPLATE_DIR: templates });
    const secondKey = keyOf(second.output());
    expect(secondKey).toBeDefined();
    expect(secondKey).not.toBe(firstKey);
    const list = await fetch(`${second.url}/api/v1/datasets`, { headers: { authorization: `Bearer ${secondKey}` } });
    expect(((await list.json()) as { data: unknown[] }).data).toEqual([]);
    expect((await createDataset(second.url, secondKey!, "second's own")).status).toBe(200);
    expect(await second.stop()).toBe(0);
    expect(await tableExists(dataDir("second"), "template_probe")).toBe(true);
    expect(await appliedMigrations(dataDir("second"))).toBe(migrationFiles());
    // The CLI on a fresh data directory starts from the template too.
    const cli = await runCli(["projects", "create", "--name", "from-the-cli"], { HONE_DATA_DIR: dataDir("cli"), HONE_PGLITE_TEMPLATE_DIR: templates });
    expect(cli.code).toBe(0);
    expect(JSON.parse(cli.stdout).apiKey).toMatch(/^hone_sk_/);
    expect(await tableExists(dataDir("cli"), "template_probe")).toBe(true);
    // The template itself is untouched by the copy's use: no project in it.
    await withDb(join(templates, key), async (d) => {
      const r = (await d.db.execute("select count(*)::int as n from projects")) as unknown as { rows: { n: number }[] };
      expect(r.rows[0]!.n).toBe(0);
    });
  }, 90_000);

  test("an incomplete template is not used and is made again; templates of other keys go", async () => {
    rmSync(join(templates, key, "ready"));
    mkdirSync(join(templates, "0000old0000"), { recursive: true });
    writeFileSync(join(templates, "0000old0000", "ready"), "old\n");
    // Partial copies: one a crashed process left two hours ago, one being made now by another.
    mkdirSync(join(templates, ".crashed.partial"));
    const twoHoursAgo = new Date(Date.now() - 2 * 3_600_000);
    utimesSync(join(templates, ".crashed.partial"), twoHoursAgo, twoHoursAgo);
    mkdirSync(join(templates, ".in-progress.partial"));
    const s = await startServer({ HONE_DATA_DIR: dataDir("third"), HONE_PGLITE_TEMPLATE_DIR: templates });
    expect(await s.stop()).toBe(0);
    // Made by initdb and the migrations, not copied from the marked (incomplete) template.
    expect(await tableExists(dataDir("third"), "template_probe")).toBe(false);
    expect(existsSync(join(templates, key, "ready"))).toBe(true);
    expect(await tableExists(join(templates, key), "template_probe")).toBe(false);
    expect(existsSync(join(templates, "0000old0000"))).toBe(false);
    expect(existsSync(join(templates, ".crashed.partial"))).toBe(false);
    expect(existsSync(join(templates, ".in-progress.partial"))).toBe(true);
  }, 90_000);

  test("off: no template is read or kept; a template directory that cannot be written is said, and the start goes on", async () => {
    const off = join(root, "off-templates");
    const s = await startServer({ HONE_DATA_DIR: dataDir("off"), HONE_PGLITE_TEMPLATE_DIR: "off" });
    expect(await s.stop()).toBe(0);
    expect(existsSync(off)).toBe(false);
    expect(await appliedMigrations(dataDir("off"))).toBe(migrationFiles());

    const blocker = join(root, "a-file");
    writeFileSync(blocker, "not a directory\n");
    const bad = await startServer({ HONE_DATA_DIR: dataDir("unwritable"), HONE_PGLITE_TEMPLATE_DIR: join(blocker, "templates") });
    const health = await fetch(`${bad.url}/health`);
    expect(health.status).toBe(200);
    expect(await bad.stop()).toBe(0);
    expect(bad.output()).toContain("template could not be kept");
  }, 90_000);

  test("`bun run db:template` (the postinstall script) makes the template once and never fails", async () => {
    const dir = join(root, "install-templates");
    const run = async (env: Record<string, string>) => {
      const proc = Bun.spawn(["bun", "src/db/make-template.ts"], {
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp", ...env },
        stdout: "pipe",
        stderr: "pipe",
      });
      const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
      return { out, code };
    };
    const made = await run({ HONE_PGLITE_TEMPLATE_DIR: dir });
    expect(made.code).toBe(0);
    expect(made.out).toContain("made the embedded database template");
    expect(existsSync(join(dir, key, "ready"))).toBe(true);
    const again = await run({ HONE_PGLITE_TEMPLATE_DIR: dir });
    expect(again.out).toContain("is ready");
    // A bad setting is printed, and the install still succeeds.
    const broken = await run({ HONE_PGLITE_TEMPLATE_DIR: dir, PORT: "not a port" });
    expect(broken.code).toBe(0);
    expect(broken.out).toContain("no embedded database template made");
  }, 90_000);
});
