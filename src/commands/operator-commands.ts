// The `hone` command's operator tasks, run either by the CLI on the database directly or, when a
// server holds the embedded database (one process at a time), by that server on the CLI's behalf
// (POST /internal/control, authorised by the token it wrote into its data directory).
import type { BaseCtx } from "../domain/context";
import { createApiKey, CreateApiKeyInput, createProject, getProject, listApiKeys, revokeApiKey, SetProviderKeyInput, setProviderKey } from "../domain/projects";
import { asInputOf } from "../core/verb-input";
import { recordAudit } from "../domain/audit";

export const OPERATOR_COMMANDS = ["projects create", "keys list", "keys create", "keys revoke", "provider-keys set", "migrate"] as const;
export type OperatorCommand = (typeof OPERATOR_COMMANDS)[number];

export class UsageError extends Error {}

function option(values: Record<string, unknown>, name: string): string {
  const v = values[name];
  if (typeof v !== "string" || v === "") throw new UsageError(`missing --${name}`);
  return v;
}

/** Runs one command with the CLI's options (`--name`, `--project`, ...); its JSON answer. Changes are audited. */
export async function runOperatorCommand(ctx: BaseCtx, command: OperatorCommand, values: Record<string, unknown>): Promise<unknown> {
  const result = await run(ctx, command, values);
  if (command !== "keys list" && command !== "migrate") {
    const made = result as { projectId?: string; id?: string };
    const projectId = typeof values.project === "string" ? values.project : (made.projectId ?? null);
    await recordAudit(ctx.deps, {
      actor: ctx.actor,
      projectId,
      transport: "cli",
      verb: `hone ${command}`,
      input: values,
      outcome: "ok",
      address: null,
      userAgent: null,
      requestId: ctx.requestId,
      resultId: made.id ?? made.projectId ?? null,
    });
  }
  return result;
}

async function run(ctx: BaseCtx, command: OperatorCommand, values: Record<string, unknown>): Promise<unknown> {
  switch (command) {
    case "projects create": {
      const created = await createProject(ctx, { name: option(values, "name") });
      return { projectId: created.projectId, apiKey: created.apiKey };
    }
    case "keys list": {
      const projectId = option(values, "project");
      await getProject(ctx, projectId);
      const keys: Awaited<ReturnType<typeof listApiKeys>> = [];
      for (let after: string | null = null; ; ) {
        const page = await listApiKeys({ ...ctx, projectId }, { first: ctx.deps.config.maxPageSize, after });
        keys.push(...page);
        if (page.length < ctx.deps.config.maxPageSize) break;
        after = page.at(-1)!.id;
      }
      return { apiKeys: keys };
    }
    case "keys create": {
      const name = values.name === undefined ? undefined : String(values.name);
      const list = (v: unknown) =>
        typeof v === "string"
          ? v
              .split(",")
              .map((s) => s.trim())
              .filter(Boolean)
          : undefined;
      const metadata =
        typeof values.metadata === "string"
          ? Object.fromEntries(list(values.metadata)!.map((kv) => [kv.split("=")[0], kv.slice(kv.indexOf("=") + 1)]))
          : undefined;
      const created = await createApiKey(
        ctx,
        asInputOf(CreateApiKeyInput, {
          projectId: option(values, "project"),
          name,
          scopes: list(values.scopes),
          allowedModels: list(values.models),
          expiresAt: typeof values["expires-at"] === "string" ? values["expires-at"] : undefined,
          metadata,
        }),
      );
      const k = created.key;
      return {
        apiKey: created.apiKey,
        id: k.id,
        name: k.name,
        prefix: k.prefix,
        scopes: k.scopes,
        allowedModels: k.allowedModels,
        expiresAt: k.expiresAt,
        metadata: k.metadata,
      };
    }
    case "keys revoke": {
      const projectId = option(values, "project");
      await getProject(ctx, projectId);
      return await revokeApiKey({ ...ctx, projectId }, { id: option(values, "key-id") });
    }
    case "provider-keys set": {
      const projectId = option(values, "project");
      await getProject({ ...ctx }, projectId);
      const set = await setProviderKey(
        { ...ctx, projectId },
        asInputOf(SetProviderKeyInput, {
          provider: option(values, "provider"),
          apiKey: option(values, "key"),
          name: typeof values.name === "string" ? values.name : undefined,
          weight: typeof values.weight === "string" ? Number(values.weight) : undefined,
        }),
      );
      return { provider: set.provider, name: set.name, last4: set.last4 };
    }
    case "migrate":
      return { migrated: true };
    default: {
      const unknown: never = command;
      throw new UsageError(`unknown command: ${String(unknown)}`);
    }
  }
}
