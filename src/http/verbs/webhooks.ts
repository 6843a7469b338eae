import { deleteWebhook, getWebhook, listWebhookDeliveries, setWebhook, testWebhook, type Webhook, type WebhookDelivery } from "../../domain/webhooks";
import { toWireDate } from "../dates";
import { SetWebhookResultRef, WebhookDeliveryRef, WebhookRef } from "../graphql/types/limits";
import { verbField } from "../graphql/verb-field";
import { verbMutation, verbQuery } from "../trpc/verb-procedure";

// The webhooks area's verbs on tRPC and GraphQL, a line each (docs/architecture.md "Adding a verb").

const webhookOut = (w: Webhook) => ({ ...w, createdAt: toWireDate(w.createdAt), updatedAt: toWireDate(w.updatedAt) });
const deliveryOut = (d: WebhookDelivery) => ({ ...d, createdAt: toWireDate(d.createdAt), deliveredAt: toWireDate(d.deliveredAt) });

/** tRPC `webhooks.*`. */
export const webhooksProcedures = {
  get: verbQuery(getWebhook, (w) => (w ? webhookOut(w) : null)),
  /** `secret` is given when it was made (a new webhook, or rotateSecret), this once. */
  set: verbMutation(setWebhook, (r) => ({ webhook: webhookOut(r.webhook), secret: r.secret })),
  delete: verbMutation(deleteWebhook),
  test: verbMutation(testWebhook, deliveryOut),
  deliveries: verbQuery(listWebhookDeliveries, (list) => list.map(deliveryOut)),
};

/** GraphQL: fields named as the verbs. */
export function webhooksFields(): void {
  verbField(getWebhook, { type: WebhookRef, nullable: true });
  verbField(setWebhook, { type: SetWebhookResultRef });
  verbField(deleteWebhook, { type: "Boolean", out: (d) => d.deleted });
  verbField(testWebhook, { type: WebhookDeliveryRef });
  verbField(listWebhookDeliveries, { type: [WebhookDeliveryRef] });
}
