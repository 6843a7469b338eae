import {
  deleteLimit,
  type Limit,
  LimitIdInput,
  limitSpend,
  LimitSpendInput,
  type LimitSpend,
  listLimits,
  setLimit,
  SetLimitInput,
} from "../../../domain/limits";
import {
  deleteWebhook,
  getWebhook,
  ListDeliveriesInput,
  listWebhookDeliveries,
  setWebhook,
  SetWebhookInput,
  testWebhook,
  type Webhook,
  type WebhookDelivery,
} from "../../../domain/webhooks";
import { toWireDate } from "../../dates";
import { manageProcedure, projectProcedure, router } from "../init";

const limitOut = (l: Limit) => ({ ...l, createdAt: toWireDate(l.createdAt), updatedAt: toWireDate(l.updatedAt) });
const spendOut = (s: LimitSpend) => ({ ...s, windowStart: toWireDate(s.windowStart), windowEnd: toWireDate(s.windowEnd) });
const webhookOut = (w: Webhook) => ({ ...w, createdAt: toWireDate(w.createdAt), updatedAt: toWireDate(w.updatedAt) });
const deliveryOut = (d: WebhookDelivery) => ({ ...d, createdAt: toWireDate(d.createdAt), deliveredAt: toWireDate(d.deliveredAt) });

export const limitsRouter = router({
  list: projectProcedure.query(async ({ ctx }) => (await listLimits(ctx.project)).map(limitOut)),
  /** What each limit's current windows hold against their caps. */
  spend: projectProcedure.input(LimitSpendInput).query(async ({ ctx, input }) => (await limitSpend(ctx.project, input)).map(spendOut)),
  set: manageProcedure.input(SetLimitInput).mutation(async ({ ctx, input }) => limitOut(await setLimit(ctx.project, input))),
  delete: manageProcedure.input(LimitIdInput).mutation(({ ctx, input }) => deleteLimit(ctx.project, input)),
});

export const webhooksRouter = router({
  get: projectProcedure.query(async ({ ctx }) => {
    const w = await getWebhook(ctx.project);
    return w ? webhookOut(w) : null;
  }),
  /** `secret` is given when it was made (a new webhook, or rotateSecret), this once. */
  set: manageProcedure.input(SetWebhookInput).mutation(async ({ ctx, input }) => {
    const r = await setWebhook(ctx.project, input);
    return { webhook: webhookOut(r.webhook), secret: r.secret };
  }),
  delete: manageProcedure.mutation(({ ctx }) => deleteWebhook(ctx.project)),
  test: manageProcedure.mutation(async ({ ctx }) => deliveryOut(await testWebhook(ctx.project))),
  deliveries: projectProcedure.input(ListDeliveriesInput).query(async ({ ctx, input }) => (await listWebhookDeliveries(ctx.project, input)).map(deliveryOut)),
});
