#!/usr/bin/env bun
// The `hone` command: operator tasks on the same database the server uses (same environment).
import { parseArgs } from "node:util";
import { ConfigError, loadConfig } from "./config";
import { systemCtx } from "./context";
import { DataDirLockedError, openDatabase } from "./db/client";
import { createDeps } from "./deps";
import { createApiKey, createProject, getProject, listApiKeys, revokeApiKey, setProviderKey } from "./domain/projects";
import { DomainError } from "./errors";
import { createLogger } from "./logger";
import { resolveSecretKey } from "./secrets";

const USAGE = `Usage: hone <command> [options]

Commands:
  projects create --name NAME     create a project; prints {"projectId", "apiKey"}
  keys list --project ID          list a project's API keys (never the keys themselves); prints
                                  {"apiKeys": [{"id","name","prefix","createdAt","lastUsedAt","revokedAt"}]}
  keys create --project ID [--name NAME]
                                  create an API key, shown this once; prints {"apiKey","id","name","prefix"}
  keys revoke --project ID --key-id ID
                                  revoke a key (running servers refuse it within HONE_API_KEY_CACHE_MS);
                                  prints {"id","revokedAt",...}
  provider-keys set --project ID --provider openai|anthropic|gemini|together --key KEY
                                  store a provider API key (encrypted); prints {"provider","last4"}
  migrate                         apply database migrations; prints {"migrated": true}

The database is chosen like the server's: DATABASE_URL, else the embedded one in HONE_DATA_DIR.`;

class UsageError extends Error {}

function option(values: Record<string, unknown>, name: string): string {
  const v = values[name];
  if (typeof v !== "string" || v === "") throw new UsageError(`missing --${name}`);
  return v;
}

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
      help: { type: "boolean", short: "h" },
    },
  });
  const command = positionals.join(" ");
  if (values.help || command === "" || command === "help") {
    process.stdout.write(`${USAGE}\n`);
    return undefined;
  }
  const known = ["projects create", "keys list", "keys create", "keys revoke", "provider-keys set", "migrate"];
  if (!known.includes(command)) throw new UsageError(`unknown command: ${command}`);

  const config = loadConfig();
  const database = await openDatabase(config, { owner: "hone cli" });
  try {
    const deps = createDeps({ config, database, logger: createLogger("silent"), secretKey: resolveSecretKey(config) });
    const ctx = { ...systemCtx(deps, "cli"), actor: { type: "cli" as const } };
    switch (command) {
      case "projects create": {
        const created = await createProject(ctx, { name: option(values, "name") });
        return { projectId: created.projectId, apiKey: created.apiKey };
      }
      case "keys list": {
        const projectId = option(values, "project");
        await getProject(ctx, projectId);
        return { apiKeys: await listApiKeys({ ...ctx, projectId }) };
      }
      case "keys create": {
        const name = values.name === undefined ? undefined : String(values.name);
        const created = await createApiKey(ctx, { projectId: option(values, "project"), name });
        return { apiKey: created.apiKey, id: created.key.id, name: created.key.name, prefix: created.key.prefix };
      }
      case "keys revoke": {
        const projectId = option(values, "project");
        await getProject(ctx, projectId);
        return await revokeApiKey({ ...ctx, projectId }, { id: option(values, "key-id") });
      }
      case "provider-keys set": {
        const projectId = option(values, "project");
        await getProject({ ...ctx }, projectId);
        const set = await setProviderKey({ ...ctx, projectId }, { provider: option(values, "provider") as never, apiKey: option(values, "key") });
        return { provider: set.provider, last4: set.last4 };
      }
      case "migrate":
        return { migrated: true };
    }
  } finally {
    await database.close();
  }
  return undefined;
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
