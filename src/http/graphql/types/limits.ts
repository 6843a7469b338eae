import type { Limit, LimitSpend } from "../../../domain/limits";
import type { SetWebhookResult, Webhook, WebhookDelivery } from "../../../domain/webhooks";
import { builder } from "../builder";

export const LimitRef = builder.objectRef<Limit>("Limit").implement({
  description: "What one subject may spend: the project, one key, one tag value, or each value of a tag (tagKey without tagValue). A null cap is not limited",
  fields: (t) => ({
    id: t.exposeID("id"),
    scope: t.exposeString("scope", { description: "project, key or tag" }),
    keyId: t.exposeString("keyId", { nullable: true }),
    tagKey: t.exposeString("tagKey", { nullable: true }),
    tagValue: t.exposeString("tagValue", { nullable: true, description: "Null on a tag limit: each value of the tag on its own" }),
    requestsPerMinute: t.exposeInt("requestsPerMinute", { nullable: true }),
    tokensPerMinute: t.exposeInt("tokensPerMinute", { nullable: true }),
    costPerDayUsd: t.exposeFloat("costPerDayUsd", { nullable: true, description: "A budget per UTC day" }),
    costPerMonthUsd: t.exposeFloat("costPerMonthUsd", { nullable: true, description: "A budget per UTC month" }),
    unpricedCalls: t.exposeString("unpricedCalls", {
      description: "Under a cost cap, a call to a model Hone has no price for: refuse (403 unpriced_model) or allow (counted at what it turns out to cost)",
    }),
    createdAt: t.field({ type: "DateTime", resolve: (l) => l.createdAt }),
    updatedAt: t.field({ type: "DateTime", resolve: (l) => l.updatedAt }),
  }),
});

export const LimitSpendRef = builder.objectRef<LimitSpend>("LimitSpend").implement({
  description: "One capped quantity of a limit in its current window (per tag value for a per-value limit)",
  fields: (t) => ({
    limitId: t.exposeString("limitId"),
    metric: t.exposeString("metric", { description: "requests, tokens, usd_day or usd_month" }),
    value: t.exposeString("value", { nullable: true, description: "The tag value, for a per-value limit" }),
    cap: t.exposeFloat("cap"),
    spent: t.exposeFloat("spent", { description: "Used by calls that ended" }),
    reserved: t.exposeFloat("reserved", { description: "Taken by the gateway processes to admit calls with (in-flight calls and unused slices)" }),
    windowStart: t.field({ type: "DateTime", resolve: (s) => s.windowStart }),
    windowEnd: t.field({ type: "DateTime", resolve: (s) => s.windowEnd }),
  }),
});

export const WebhookRef = builder.objectRef<Webhook>("Webhook").implement({
  description: "Where the project's alerts are posted (budget thresholds, keys near expiry), signed with its secret",
  fields: (t) => ({
    url: t.exposeString("url"),
    secretHint: t.exposeString("secretHint", { description: "The secret's last 4 characters" }),
    createdAt: t.field({ type: "DateTime", resolve: (w) => w.createdAt }),
    updatedAt: t.field({ type: "DateTime", resolve: (w) => w.updatedAt }),
  }),
});

export const SetWebhookResultRef = builder.objectRef<SetWebhookResult>("SetWebhookResult").implement({
  fields: (t) => ({
    webhook: t.field({ type: WebhookRef, resolve: (r) => r.webhook }),
    secret: t.exposeString("secret", { nullable: true, description: "The signing secret, shown this once (a new webhook, or rotateSecret)" }),
  }),
});

export const WebhookDeliveryRef = builder.objectRef<WebhookDelivery>("WebhookDelivery").implement({
  fields: (t) => ({
    id: t.exposeID("id"),
    event: t.exposeString("event"),
    status: t.exposeString("status", { description: "PENDING, DELIVERED or FAILED" }),
    attempts: t.exposeInt("attempts"),
    lastStatusCode: t.exposeInt("lastStatusCode", { nullable: true }),
    lastError: t.exposeString("lastError", { nullable: true }),
    payload: t.field({ type: "JSON", resolve: (d) => d.payload }),
    createdAt: t.field({ type: "DateTime", resolve: (d) => d.createdAt }),
    deliveredAt: t.field({ type: "DateTime", nullable: true, resolve: (d) => d.deliveredAt }),
  }),
});
