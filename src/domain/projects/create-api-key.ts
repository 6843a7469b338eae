import { and, count, eq, isNull } from "drizzle-orm";
import { dbOf, type BaseCtx } from "../context";
import { apiKeys, projects } from "../../db/schema";
import { DomainError, notFound, parseInput } from "../../core/errors";
import { apiKeyInfoColumns, generateApiKey, hashApiKey, toApiKeyInfo } from "./internal";
import { requireFullKey } from "./key-scopes";
import { CreateApiKeyInput, type CreatedApiKey } from "./schemas";

/**
 * Issues a key for a project. The key is returned once; only its hash is stored. Registering a
 * key that already belongs to the project is a no-op, so bootstrap can run on every start (and a
 * revoked bootstrap key stays revoked).
 */
export async function createApiKey(ctx: BaseCtx, raw: CreateApiKeyInput): Promise<CreatedApiKey> {
  requireFullKey(ctx.actor, "create API keys");
  const input = parseInput(CreateApiKeyInput, raw);
  if (input.expiresAt && input.expiresAt.getTime() <= ctx.deps.clock().getTime()) {
    throw new DomainError("VALIDATION", "expiresAt must be in the future", { issues: [{ message: "expiresAt must be in the future", path: ["expiresAt"] }] });
  }
  const db = dbOf(ctx);
  const [project] = await db.select({ id: projects.id }).from(projects).where(eq(projects.id, input.projectId));
  if (!project) throw notFound("Project", input.projectId);
  // Checked before the insert, not under a lock: concurrent creations may pass it together, so
  // the bound is approximate by the number of requests in flight, which is what it is for.
  const [active] = await db
    .select({ n: count() })
    .from(apiKeys)
    .where(and(eq(apiKeys.projectId, project.id), isNull(apiKeys.revokedAt)));
  const max = ctx.deps.config.maxActiveApiKeys;
  if ((active?.n ?? 0) >= max && !input.apiKey) {
    const message = `A project may hold at most ${max} active API keys (HONE_MAX_ACTIVE_API_KEYS); revoke one before creating another`;
    throw new DomainError("VALIDATION", message, { issues: [{ message }] });
  }
  // A person's key is theirs unless they make it for the project (a service key); a key made with
  // a person's key is that person's too. The CLI, the admin token and a service key make service keys.
  const maker = ctx.actor.type === "user" ? ctx.actor.userId : ctx.actor.type === "apiKey" ? (ctx.actor.grant?.ownerId ?? null) : null;
  if (input.owner === "me" && !maker) {
    const message = `owner "me" needs a person: this key is made by ${ctx.actor.type === "apiKey" ? "a service key" : "Hone itself"}, so it belongs to the project`;
    throw new DomainError("VALIDATION", message, { issues: [{ message, path: ["owner"] }] });
  }
  const owner = maker && input.owner !== "project" ? "person" : "project";
  const apiKey = input.apiKey ?? generateApiKey();
  const keyHash = hashApiKey(apiKey);
  const keyId = ctx.deps.ids("apiKey");
  const inserted = await db
    .insert(apiKeys)
    .values({
      id: keyId,
      projectId: project.id,
      keyHash,
      keyHint: apiKey.slice(-4),
      name: input.name ?? null,
      createdAt: ctx.deps.clock(),
      expiresAt: input.expiresAt ?? null,
      allowedModels: input.allowedModels ?? null,
      ...(input.scopes ? { scopes: input.scopes } : {}),
      metadata: input.metadata ?? null,
      createdBy: maker,
      owner,
    })
    .onConflictDoNothing({ target: apiKeys.keyHash })
    .returning(apiKeyInfoColumns);
  if (inserted[0]) return { keyId: inserted[0].id, projectId: project.id, apiKey, key: toApiKeyInfo(inserted[0]) };
  const [existing] = await db
    .select({ ...apiKeyInfoColumns, projectId: apiKeys.projectId })
    .from(apiKeys)
    .where(eq(apiKeys.keyHash, keyHash));
  if (!existing || existing.projectId !== project.id) {
    // Say that it is taken, never by which project.
    throw new DomainError("CONFLICT", "This API key is already registered to another project");
  }
  return { keyId: existing.id, projectId: project.id, apiKey, key: toApiKeyInfo(existing) };
}
