import { describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError, loadConfig } from "../../src/core/config";
import { decodeSecretKey, resolveSecretKey } from "../../src/db/secret-key";

describe("loadConfig", () => {
  test("defaults match the operator contract", () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      port: 3000,
      host: "127.0.0.1",
      databaseUrl: undefined,
      dataDir: "./.hone",
      openaiBaseUrl: "https://api.openai.com/v1",
      anthropicBaseUrl: "https://api.anthropic.com",
      geminiBaseUrl: "https://generativelanguage.googleapis.com/v1beta/openai",
      togetherBaseUrl: "https://api.together.xyz/v1",
      testingRoutes: false,
      modelPrefixes: ["hone", "openpipe"],
      maxBodyBytes: 10 * 1024 * 1024,
    });
  });

  test("bad values name the variable", () => {
    expect(() => loadConfig({ PORT: "70000" })).toThrow(ConfigError);
    expect(() => loadConfig({ DATABASE_URL: "mysql://x" })).toThrow(/DATABASE_URL/);
    expect(() => loadConfig({ HONE_BOOTSTRAP_API_KEY: "opk_123" })).toThrow(/HONE_BOOTSTRAP_API_KEY/);
    expect(() => loadConfig({ HONE_TESTING_ROUTES: "maybe" })).toThrow(/HONE_TESTING_ROUTES/);
  });

  test("empty strings count as unset", () => {
    expect(loadConfig({ DATABASE_URL: "", HONE_ADMIN_TOKEN: "" })).toMatchObject({ databaseUrl: undefined, adminToken: undefined });
  });
});

describe("the secret key", () => {
  test("accepts 32 bytes as hex or base64, rejects anything else", () => {
    expect(decodeSecretKey("ab".repeat(32))).toHaveLength(32);
    expect(decodeSecretKey(Buffer.alloc(32, 1).toString("base64"))).toHaveLength(32);
    expect(() => decodeSecretKey("short")).toThrow(/32 bytes/);
    expect(() => decodeSecretKey(Buffer.alloc(16).toString("base64"))).toThrow(/32 bytes/);
  });

  test("is required with DATABASE_URL", () => {
    expect(() => resolveSecretKey({ databaseUrl: "postgres://x/y", dataDir: "x", secretKey: undefined })).toThrow(/required with DATABASE_URL/);
  });

  test("the embedded database generates one once, mode 0600, and reuses it", () => {
    const dir = mkdtempSync(join(tmpdir(), "hone-secret-"));
    try {
      const a = resolveSecretKey({ databaseUrl: undefined, dataDir: dir, secretKey: undefined });
      const b = resolveSecretKey({ databaseUrl: undefined, dataDir: dir, secretKey: undefined });
      expect(Buffer.from(a).equals(Buffer.from(b))).toBe(true);
      expect(statSync(join(dir, "secret.key")).mode & 0o777).toBe(0o600);
      expect(readFileSync(join(dir, "secret.key"), "utf8").trim()).toBe(Buffer.from(a).toString("base64"));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
