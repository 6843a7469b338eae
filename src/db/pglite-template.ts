import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { isMemoryDataDir, MIGRATIONS_FOLDER } from "./client";

// A fresh embedded database starts from a copy of a migrated one. Creating a PGlite cluster runs
// initdb inside WebAssembly (2-5 s on a 2-core machine) and then every migration; copying a
// cleanly closed, migrated data directory of the same PGlite version and the same migrations
// takes about a tenth of a second. The template is made by `bun install` (the postinstall script,
// src/db/make-template.ts) or by the first fresh start that had none, and kept under
// HONE_PGLITE_TEMPLATE_DIR, one directory per (PGlite version, migrations) key: a new migration or
// a PGlite upgrade makes a new key, and the old template goes. A template is only used once it is
// complete (its `ready` file is written last, then the directory is renamed into place), so a
// crash while one is made leaves nothing that could be picked up.

const READY = "ready";

/** The key of the template the running code can use: PGlite's version and every migration file. */
export function templateKey(): string {
  const hash = createHash("sha256");
  // The package's own package.json (not exported): two levels above its dist/index.js.
  const entry = Bun.resolveSync("@electric-sql/pglite", import.meta.dir);
  const pglite = JSON.parse(readFileSync(resolve(entry, "../../package.json"), "utf8")) as { version: string };
  hash.update(`pglite ${pglite.version}\n`);
  const walk = (dir: string, prefix: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path, `${prefix}${entry.name}/`);
      else hash.update(`${prefix}${entry.name}\n`).update(readFileSync(path));
    }
  };
  walk(MIGRATIONS_FOLDER, "");
  return hash.digest("hex").slice(0, 24);
}

/** Whether a complete template for this code is in `templateDir`. */
export function hasTemplate(templateDir: string): boolean {
  return existsSync(join(resolve(templateDir), templateKey(), READY));
}

/**
 * Copies the template into `<dataDir>/pgdata` when there is one for this code: true when it did.
 * Anything in the way (no template, a copy that fails) leaves the data directory as it was.
 */
export function copyTemplate(templateDir: string, dataDir: string): boolean {
  if (!hasTemplate(templateDir)) return false;
  const source = join(resolve(templateDir), templateKey());
  const target = resolve(dataDir, "pgdata");
  const partial = `${target}.copying-${process.pid}`;
  try {
    mkdirSync(resolve(dataDir), { recursive: true });
    cpSync(join(source, "pgdata"), partial, { recursive: true });
    renameSync(partial, target);
    return true;
  } catch {
    // The template could not be copied (a disk full, a directory removed meanwhile): the caller
    // creates the database itself, as without a template.
    removeLeftover(partial);
    return false;
  }
}

/**
 * A fresh embedded data directory (no `pgdata` yet) becomes a copy of the template when there is
 * one: true when it did. Nothing for Postgres, an in-memory database or one that exists.
 */
export function startFromTemplate(config: { databaseUrl?: string | null; dataDir: string; pgliteTemplateDir?: string | null }): boolean {
  if (config.databaseUrl || !config.pgliteTemplateDir || isMemoryDataDir(config.dataDir)) return false;
  return !existsSync(resolve(config.dataDir, "pgdata")) && copyTemplate(config.pgliteTemplateDir, config.dataDir);
}

/**
 * Keeps a copy of a freshly migrated, closed data directory as the template for its key and
 * removes templates of other keys. Returns why it could not, or null.
 */
export function saveTemplate(templateDir: string, dataDir: string): string | null {
  const root = resolve(templateDir);
  const key = templateKey();
  const target = join(root, key);
  if (existsSync(join(target, READY))) return null;
  const partial = join(root, `.${key}.${process.pid}.${Date.now()}`);
  try {
    mkdirSync(root, { recursive: true });
    cpSync(resolve(dataDir, "pgdata"), join(partial, "pgdata"), { recursive: true });
    writeFileSync(join(partial, READY), `${new Date().toISOString()}\n`);
    rmSync(target, { recursive: true, force: true });
    renameSync(partial, target);
  } catch (err) {
    removeLeftover(partial);
    // Another process put the same template in place first: as good as ours.
    if (existsSync(join(target, READY))) return null;
    return `the embedded database template could not be kept in ${root}: ${err instanceof Error ? err.message : String(err)}`;
  }
  // Other keys' templates go; so do partial copies a crashed process left (an hour old: one being
  // made now takes seconds).
  for (const entry of readdirSync(root)) {
    const path = join(root, entry);
    if (entry.startsWith(".") ? ageMs(path) > 3_600_000 : entry !== key) removeLeftover(path);
  }
  return null;
}

/** How long ago a path was changed; 0 when it is gone already (another process removed it). */
function ageMs(path: string): number {
  try {
    return Date.now() - statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}

/** Removes what a failed copy left; a path that cannot even be looked at (under a file) left nothing. */
function removeLeftover(path: string): void {
  try {
    rmSync(path, { recursive: true, force: true });
  } catch {
    // ENOTDIR and the like: nothing was made there.
  }
}
