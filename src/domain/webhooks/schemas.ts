import { z } from "zod";
import { MAX_BASE_URL_LENGTH, MAX_ID_LENGTH } from "../../core/limits";

export const SetWebhookInput = z.strictObject({
  /** Where alerts are posted (https, or http to a host the operator opened); a private address is refused like a custom provider's. */
  url: z.string().trim().min(1, "url must not be empty").max(MAX_BASE_URL_LENGTH).url("url must be an absolute URL"),
  /** A new signing secret (the old one stops signing at once). A new webhook always gets one. */
  rotateSecret: z.boolean().nullish(),
});
export type SetWebhookInput = z.input<typeof SetWebhookInput>;

export type Webhook = { url: string; secretHint: string; createdAt: Date; updatedAt: Date };
/** `secret` is given when it was made (a new webhook, or rotateSecret), this once. */
export type SetWebhookResult = { webhook: Webhook; secret: string | null };

export const WEBHOOK_EVENTS = ["budget.threshold", "key.expiring", "evaluation.pass_rate_low", "webhook.test"] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

export type WebhookDelivery = {
  id: string;
  event: string;
  status: "PENDING" | "DELIVERED" | "FAILED";
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  payload: Record<string, unknown>;
  createdAt: Date;
  deliveredAt: Date | null;
};

export const ListDeliveriesInput = z
  .strictObject({
    first: z.number().int().min(1).max(500).nullish(),
    /** Deliveries older than this one (its id), for the next page. */
    after: z.string().min(1).max(MAX_ID_LENGTH).nullish().meta({ graphql: "ID" }),
  })
  .optional();
