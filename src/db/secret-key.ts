import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigError, type Config } from "../core/config";
import { isMemoryDataDir } from "./client";

/** Decodes a 32-byte key given as 64 hex characters or base64. */
export function decodeSecretKey(text: string): Uint8Array {
  const t = text.trim();
  let bytes: Uint8Array | null = null;
  if (/^[0-9a-fA-F]{64}$/.test(t)) bytes = Uint8Array.from(Buffer.from(t, "hex"));
  else if (/^[A-Za-z0-9+/_-]+={0,2}$/.test(t)) bytes = Uint8Array.from(Buffer.from(t, "base64"));
  if (bytes?.length !== 32) {
    throw new ConfigError("HONE_SECRET_KEY must be 32 bytes, written as 64 hex characters or base64 (e.g. `openssl rand -base64 32`)");
  }
  return bytes;
}

/**
 * The key that encrypts provider keys at rest. With a Postgres server it must be given, because
 * every Hone process sharing that database needs the same one. The embedded database keeps a
 * generated key beside its data (mode 0600) so a single-machine install needs no setup.
 */
export function resolveSecretKey(config: Pick<Config, "secretKey" | "databaseUrl" | "dataDir">): Uint8Array {
  if (config.secretKey) return decodeSecretKey(config.secretKey);
  if (config.databaseUrl) {
    throw new ConfigError(
      "HONE_SECRET_KEY is required with DATABASE_URL: every Hone process on that database must use the same key " +
        "to read stored provider keys. Generate one with `openssl rand -base64 32`.",
    );
  }
  if (isMemoryDataDir(config.dataDir)) return crypto.getRandomValues(new Uint8Array(32));
  mkdirSync(config.dataDir, { recursive: true });
  const path = join(config.dataDir, "secret.key");
  if (existsSync(path)) return decodeSecretKey(readFileSync(path, "utf8"));
  const key = crypto.getRandomValues(new Uint8Array(32));
  writeFileSync(path, `${Buffer.from(key).toString("base64")}\n`, { mode: 0o600, flag: "wx" });
  chmodSync(path, 0o600);
  return key;
}
