import { eq } from "drizzle-orm";
import type { Deps } from "../../deps";
import { decryptSecret } from "../../crypto";
import { readOrKnown } from "../../db/read-or-known";
import { projectWebhooks, type webhookDeliveries } from "../../db/schema";
import type { WebhookDelivery } from "./schemas";

export const webhookAad = (projectId: string) => `webhook:${projectId}`;

export const toDelivery = (r: typeof webhookDeliveries.$inferSelect): WebhookDelivery => ({
  id: r.id,
  event: r.event,
  status: r.status,
  attempts: r.attempts,
  lastStatusCode: r.lastStatusCode,
  lastError: r.lastError,
  payload: r.payload,
  createdAt: r.createdAt,
  deliveredAt: r.deliveredAt,
});

/** Whether the project has a webhook, as this process last read it (at most every 30 s). */
export async function hasWebhook(deps: Deps, projectId: string): Promise<boolean> {
  const cache = deps.caches.webhooks;
  const now = deps.clock().getTime();
  const kept = cache.get(projectId);
  if (kept && kept.expires > now) return kept.value;
  const read = await readOrKnown(
    deps.database,
    async () =>
      (await deps.database.db.select({ p: projectWebhooks.projectId }).from(projectWebhooks).where(eq(projectWebhooks.projectId, projectId))).length > 0,
    { value: kept?.value ?? false },
  );
  if (cache.size >= 10_000) cache.clear();
  cache.set(projectId, { value: read.value, expires: now + 30_000 });
  return read.value;
}

/** The project's signing secret, decrypted (deliveries only). */
export async function webhookSecret(deps: Deps, projectId: string): Promise<{ url: string; secret: string } | null> {
  const [row] = await deps.database.db.select().from(projectWebhooks).where(eq(projectWebhooks.projectId, projectId));
  if (!row) return null;
  return { url: row.url, secret: await decryptSecret(deps.secretKey, row.secretEnc, webhookAad(projectId)) };
}
