#!/usr/bin/env bun
// The `hone` command: operator tasks on the same database the server uses (same environment).
import { parseArgs } from "node:util";
import { ConfigError, loadConfig } from "./core/config";
import { systemCtx } from "./domain/context";
import { DataDirLockedError, openDatabase } from "./db/client";
import { startFromTemplate } from "./db/pglite-template";
import { createDeps } from "./compose";
import { type ControlFile, readControlFile } from "./core/control-file";
import { DomainError, ERROR_CODES } from "./core/errors";
import { createLogger } from "./core/logger";
import { OPERATOR_COMMANDS, type OperatorCommand, runOperatorCommand, UsageError } from "./commands/operator-commands";
import { resolveSecretKey } from "./db/secret-key";

const USAGE = `Usage: hone <command> [options]

Commands:
  projects create --name NAME     create a project; prints {"projectId", "apiKey"}
  keys list --project ID          list a project's API keys (never the keys themselves); prints
                                  {"apiKeys": [{"id","name","prefix","createdAt","lastUsedAt","revokedAt"}]}
  keys create --project ID [--name NAME] [--scopes gateway,read,write] [--models GLOB,GLOB]
              [--expires-at ISO-DATE] [--metadata owner=ann,app=support]
                                  create an API key, shown this once; prints {"apiKey","id","name","prefix",
                                  "scopes","allowedModels","expiresAt","metadata"}. A key for an end user or an
                                  app: --scopes gateway --models "openai:gpt-4o-mini*" --expires-at 2027-01-01
  keys revoke --project ID --key-id ID
                                  revoke a key (running servers refuse it within HONE_API_KEY_CACHE_MS);
                                  prints {"id","revokedAt",...}
  provider-keys set --project ID --provider openai|anthropic|gemini|together --key KEY [--name NAME] [--weight N]
                                  store a provider API key (encrypted); with --name, a key of the provider's
                                  key pool (calls spread by --weight); prints {"provider","name","last4"}
  migrate                         apply database migrations; prints {"migrated": true}

The database is chosen like the server's: DATABASE_URL, else the embedded one in HONE_DATA_DIR.
While a server holds the embedded database, the command is run by that server.`;

async function run(argv: string[]): Promise<unknown> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      name: { type: "string" },
      project: { type: "string" },
      provider: { type: "string" },
      key: { type: "string" },
      "key-id": { type: "string" },
      weight: { type: "string" },
      scopes: { type: "string" },
      models: { type: "string" },
      "expires-at": { type: "string" },
      metadata: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  const command = positionals.join(" ");
  if (values.help || command === "" || command === "help") {
    process.stdout.write(`${USAGE}\n`);
    return undefined;
  }
  if (!(OPERATOR_COMMANDS as readonly string[]).includes(command)) throw new UsageError(`unknown command: ${command}`);
  const { help: _help, ...options } = values;

  const config = loadConfig();
  let database: Awaited<ReturnType<typeof openDatabase>>;
  try {
    // A fresh embedded data directory starts from the migrated template, as the server's does.
    startFromTemplate(config);
    database = await openDatabase(config, { owner: "hone cli" });
  } catch (err) {
    // A server holds the embedded database: it runs the command for us, if it says how to reach it.
    const control = err instanceof DataDirLockedError ? readControlFile(config.dataDir) : null;
    if (!control) throw err;
    return viaServer(control, command as OperatorCommand, options);
  }
  try {
    const deps = createDeps({ config, database, logger: createLogger("silent"), secretKey: resolveSecretKey(config) });
    const ctx = { ...systemCtx(deps, "cli"), actor: { type: "cli" as const } };
    return await runOperatorCommand(ctx, command as OperatorCommand, options);
  } finally {
    await database.close();
  }
}

/** The command, run by the server that holds the embedded database. */
async function viaServer(control: ControlFile, command: OperatorCommand, options: Record<string, unknown>): Promise<unknown> {
  let res: Response;
  try {
    res = await fetch(`${control.url}/internal/control`, {
      method: "POST",
      headers: { authorization: `Bearer ${control.token}`, "content-type": "application/json" },
      body: JSON.stringify({ command, options }),
      signal: AbortSignal.timeout(30_000),
    });
  } catch (err) {
    throw new DataDirLockedError(
      `A server (pid ${control.pid}) holds the data directory, and it could not be reached at ${control.url} to run the command: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  const body = (await res.json()) as Record<string, unknown>;
  if (res.ok) return body;
  const issues = Array.isArray(body.issues) ? (body.issues as { message: string; path?: (string | number)[] }[]) : [];
  const code = ERROR_CODES.find((c) => c === body.code) ?? "INTERNAL";
  throw new DomainError(code, String(body.message ?? `the server answered ${res.status}`), { issues });
}

run(process.argv.slice(2)).then(
  (out) => {
    if (out !== undefined) process.stdout.write(`${JSON.stringify(out)}\n`);
    process.exit(0);
  },
  (err: unknown) => {
    const message =
      err instanceof UsageError
        ? `${err.message}\n\n${USAGE}`
        : err instanceof ConfigError || err instanceof DataDirLockedError || err instanceof DomainError
          ? err.message
          : `unexpected error: ${err instanceof Error ? err.message : String(err)}`;
    // Validation failures say which field and why, as the APIs do.
    const issues = err instanceof DomainError && err.issues.length > 0 ? { issues: err.issues } : {};
    process.stderr.write(`${JSON.stringify({ error: message.split("\n")[0], ...issues })}\n`);
    if (err instanceof UsageError) process.stderr.write(`${USAGE}\n`);
    process.exit(err instanceof UsageError ? 2 : 1);
  },
);
