import { deleteLimit, type Limit, limitSpend, type LimitSpend, listLimits, setLimit, SetLimitInput } from "../../../domain/limits";
import {
  deleteWebhook,
  getWebhook,
  listWebhookDeliveries,
  setWebhook,
  SetWebhookInput,
  type SetWebhookResult,
  testWebhook,
  type Webhook,
  type WebhookDelivery,
} from "../../../domain/webhooks";
import { asInputOf } from "../../../verb-input";
import { builder, projectCtx } from "../builder";

const LimitRef = builder.objectRef<Limit>("Limit").implement({
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

const LimitSpendRef = builder.objectRef<LimitSpend>("LimitSpend").implement({
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

const SetLimitInputRef = builder.inputType("SetLimitInput", {
  fields: (t) => ({
    scope: t.string({ description: "project, key or tag" }),
    keyId: t.id({ required: false }),
    tagKey: t.string({ required: false }),
    tagValue: t.string({ required: false, description: "Absent: each value of tagKey has the limits on its own" }),
    requestsPerMinute: t.int({ required: false }),
    tokensPerMinute: t.int({ required: false }),
    costPerDayUsd: t.float({ required: false }),
    costPerMonthUsd: t.float({ required: false }),
    unpricedCalls: t.string({ required: false, description: "refuse (default) or allow: what a cost cap does with a call Hone cannot price" }),
  }),
});

const WebhookRef = builder.objectRef<Webhook>("Webhook").implement({
  description: "Where the project's alerts are posted (budget thresholds, keys near expiry), signed with its secret",
  fields: (t) => ({
    url: t.exposeString("url"),
    secretHint: t.exposeString("secretHint", { description: "The secret's last 4 characters" }),
    createdAt: t.field({ type: "DateTime", resolve: (w) => w.createdAt }),
    updatedAt: t.field({ type: "DateTime", resolve: (w) => w.updatedAt }),
  }),
});

const SetWebhookResultRef = builder.objectRef<SetWebhookResult>("SetWebhookResult").implement({
  fields: (t) => ({
    webhook: t.field({ type: WebhookRef, resolve: (r) => r.webhook }),
    secret: t.exposeString("secret", { nullable: true, description: "The signing secret, shown this once (a new webhook, or rotateSecret)" }),
  }),
});

const WebhookDeliveryRef = builder.objectRef<WebhookDelivery>("WebhookDelivery").implement({
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

builder.queryFields((t) => ({
  limits: t.field({ type: [LimitRef], description: "The project's limits", resolve: (_, __, c) => listLimits(projectCtx(c)) }),
  limitSpend: t.field({
    type: [LimitSpendRef],
    description: "What each limit's current windows hold against their caps (per tag value: the most spent first)",
    args: { limitId: t.arg.id({ required: false }), first: t.arg.int({ required: false }) },
    resolve: (_, args, c) => limitSpend(projectCtx(c), { limitId: args.limitId == null ? null : String(args.limitId), first: args.first }),
  }),
  webhook: t.field({ type: WebhookRef, nullable: true, resolve: (_, __, c) => getWebhook(projectCtx(c)) }),
  webhookDeliveries: t.field({
    type: [WebhookDeliveryRef],
    description: "The project's alert deliveries, newest first",
    args: { first: t.arg.int({ required: false }), after: t.arg.id({ required: false }) },
    resolve: (_, args, c) => listWebhookDeliveries(projectCtx(c), { first: args.first, after: args.after == null ? null : String(args.after) }),
  }),
}));

builder.mutationFields((t) => ({
  setLimit: t.field({
    extensions: { role: "admin" },
    type: LimitRef,
    description: "Sets one subject's limits, replacing the ones it had (needs a key with every scope)",
    args: { input: t.arg({ type: SetLimitInputRef }) },
    resolve: (_, args, c) =>
      setLimit(projectCtx(c), asInputOf(SetLimitInput, { ...args.input, keyId: args.input.keyId == null ? args.input.keyId : String(args.input.keyId) })),
  }),
  deleteLimit: t.field({
    extensions: { role: "admin" },
    type: "String",
    description: "Deletes a limit; returns its id",
    args: { id: t.arg.id() },
    resolve: async (_, args, c) => (await deleteLimit(projectCtx(c), { id: String(args.id) })).id,
  }),
  setWebhook: t.field({
    extensions: { role: "admin" },
    type: SetWebhookResultRef,
    args: { url: t.arg.string(), rotateSecret: t.arg.boolean({ required: false }) },
    resolve: (_, args, c) => setWebhook(projectCtx(c), asInputOf(SetWebhookInput, args)),
  }),
  deleteWebhook: t.field({ type: "Boolean", resolve: async (_, __, c) => (await deleteWebhook(projectCtx(c))).deleted }),
  testWebhook: t.field({ type: WebhookDeliveryRef, description: "Sends a webhook.test event now", resolve: (_, __, c) => testWebhook(projectCtx(c)) }),
}));
