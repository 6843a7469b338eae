import { eq } from "drizzle-orm";
import type { Deps } from "../deps";
import { decryptSecret } from "../../lib/crypto";
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

/** The project's signing secret, decrypted (deliveries only). */
export async function webhookSecret(deps: Deps, projectId: string): Promise<{ url: string; secret: string } | null> {
  const [row] = await deps.database.db.select().from(projectWebhooks).where(eq(projectWebhooks.projectId, projectId));
  if (!row) return null;
  return { url: row.url, secret: await decryptSecret(deps.secretKey, row.secretEnc, webhookAad(projectId)) };
}
