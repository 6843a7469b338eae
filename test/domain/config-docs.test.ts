import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { EnvSchema, loadConfig } from "../../src/core/config";
import { CONFIG_DOCS_PATH, envVariableDocs, renderConfigTable, spliceConfigTable } from "../../src/print-config-docs";

const SRC = resolve(import.meta.dir, "../../src");

/**
 * The only mentions of the environment outside src/core/config.ts, and why each is not a read of a
 * variable the schema should list.
 */
const ENV_EXCEPTIONS: Record<string, string> = {
  "background/start-jobs-thread.ts": "hands the whole environment to the job thread, which runs loadConfig on it",
  "background/ingest-thread.ts": "hands the whole environment to the ingest thread, which runs loadConfig on it",
  "db/migrate-in-child.ts": "hands the environment (and the resolved data dir) to the migrating child, which runs loadConfig",
  "console/pages/settings/snippets.ts": "client code shown to users as text (their HONE_API_KEY, OPENAI_API_KEY)",
  "http/console/bundle-options.ts": "a build-time define of NODE_ENV for the console bundle",
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return /\.(ts|tsx)$/.test(e.name) ? [path] : [];
  });
}

describe("the configuration table of docs/operations.md", () => {
  test("is the table printed from the config schema (run `bun run docs:config`)", () => {
    const doc = readFileSync(CONFIG_DOCS_PATH, "utf8");
    const expected = spliceConfigTable(doc);
    if (doc !== expected) {
      const a = doc.split("\n");
      const b = expected.split("\n");
      const line = a.findIndex((l, i) => l !== b[i]);
      throw new Error(
        `docs/operations.md's configuration table differs from the config schema: run \`bun run docs:config\`\n` +
          `  line ${line + 1}, in the file: ${a[line]}\n  printed:        ${b[line]}`,
      );
    }
    expect(doc).toBe(expected);
  });

  test("every variable of the schema has a description and a default", () => {
    const docs = envVariableDocs();
    expect(docs.length).toBe(Object.keys(EnvSchema.shape).length);
    const undescribed = docs.filter((d) => !d.description?.trim()).map((d) => d.name);
    expect(undescribed, `variables without a description in src/core/config.ts (add .describe(...)): ${undescribed.join(", ")}`).toEqual([]);
    for (const d of docs) expect(d.default.trim()).not.toBe("");
  });

  test("has one row per variable", () => {
    const rows = renderConfigTable()
      .split("\n")
      .slice(2)
      .map((r) => r.match(/^\| `([A-Z0-9_]+)` \|/)?.[1]);
    expect(rows).toEqual(Object.keys(EnvSchema.shape));
  });

  test("the defaults it states in prose are what loadConfig gives", () => {
    const c = loadConfig({});
    expect(c.port).toBe(3000);
    expect(c.logFinetuneCalls).toBe("on-request");
    expect(c.sessionMaxMs).toBe(7 * 24 * 3_600_000);
    expect(c.smtp).toBeNull();
    expect(loadConfig({ HONE_SMTP_URL: "smtp://x:587" }).smtp?.from).toBe("hone@localhost");
  });
});

describe("the environment", () => {
  test("is read only by src/core/config.ts (the schema is the full list)", () => {
    const readers = sourceFiles(SRC)
      .filter((f) => /\b(process\.env|Bun\.env|import\.meta\.env)\b/.test(readFileSync(f, "utf8")))
      .map((f) => relative(SRC, f).split("\\").join("/"))
      .filter((f) => f !== "core/config.ts")
      .sort();
    const unexpected = readers.filter((f) => !(f in ENV_EXCEPTIONS));
    expect(
      unexpected,
      `src/ files reading the environment outside src/core/config.ts (add the variable to EnvSchema instead): ${unexpected.join(", ")}`,
    ).toEqual([]);
  });
});
