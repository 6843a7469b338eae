import { and, desc, eq, lt } from "drizzle-orm";
import { type Ctx, dbOf } from "../context";
import { encryptSecret } from "../../lib/crypto";
import { projectWebhooks, webhookDeliveries } from "../../db/schema";
import { DomainError, notFound, parseInput } from "../../core/errors";
import { randomBase62 } from "../../lib/ids";
import { checkUpstreamUrl, upstreamPolicy } from "../../providers/upstream-guard";
import { requireFullKey } from "../projects";
import { NoInput, verb } from "../verb";
import { raiseAlert } from "./deliver";
import { toDelivery, webhookAad } from "./webhook-store";
import { ListDeliveriesInput, SetWebhookInput, type SetWebhookResult, type Webhook, type WebhookDelivery } from "./schemas";

const WHAT = "manage webhooks";

const toWebhook = (r: typeof projectWebhooks.$inferSelect): Webhook => ({
  url: r.url,
  secretHint: r.secretHint,
  createdAt: r.createdAt,
  updatedAt: r.updatedAt,
});

export const getWebhook = verb({
  name: "webhook",
  description: "The project's alert webhook, or null when none is set",
  kind: "query",
  role: "viewer",
  input: NoInput,
  run: async (ctx: Ctx): Promise<Webhook | null> => {
    const [row] = await dbOf(ctx).select().from(projectWebhooks).where(eq(projectWebhooks.projectId, ctx.projectId));
    return row ? toWebhook(row) : null;
  },
});

/**
 * Sets where the project's alerts go. The URL is checked as a custom provider's is (no private
 * address unless the operator opened it) now, and again before every delivery (DNS may change).
 */
export const setWebhook = verb({
  name: "setWebhook",
  description: "Sets where alerts are posted; a new webhook, or rotateSecret, answers its signing secret this once (needs a key with every scope)",
  kind: "mutation",
  role: "admin",
  input: SetWebhookInput,
  run: async (ctx: Ctx, raw: SetWebhookInput): Promise<SetWebhookResult> => {
    requireFullKey(ctx.actor, WHAT);
    const input = parseInput(SetWebhookInput, raw);
    const url = new URL(input.url);
    if (url.protocol !== "https:" && url.protocol !== "http:") {
      throw new DomainError("VALIDATION", "url must be an http(s) URL", { issues: [{ message: "url must be an http(s) URL", path: ["url"] }] });
    }
    try {
      checkUpstreamUrl(input.url, upstreamPolicy(ctx.deps.config), "this webhook");
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      throw new DomainError("VALIDATION", message, { issues: [{ message, path: ["url"] }] });
    }
    const db = dbOf(ctx);
    const now = ctx.deps.clock();
    const [existing] = await db.select().from(projectWebhooks).where(eq(projectWebhooks.projectId, ctx.projectId));
    const secret = !existing || input.rotateSecret ? `whsec_${randomBase62(32)}` : null;
    const secretFields = secret ? { secretEnc: await encryptSecret(ctx.deps.secretKey, secret, webhookAad(ctx.projectId)), secretHint: secret.slice(-4) } : {};
    const [row] = existing
      ? await db
          .update(projectWebhooks)
          .set({ url: input.url, ...secretFields, updatedAt: now })
          .where(eq(projectWebhooks.projectId, ctx.projectId))
          .returning()
      : await db
          .insert(projectWebhooks)
          .values({
            projectId: ctx.projectId,
            url: input.url,
            secretEnc: secretFields.secretEnc!,
            secretHint: secretFields.secretHint!,
            createdAt: now,
            updatedAt: now,
          })
          .returning();
    return { webhook: toWebhook(row!), secret };
  },
});

export const deleteWebhook = verb({
  name: "deleteWebhook",
  description: "Deletes the project's webhook; returns true",
  kind: "mutation",
  role: "admin",
  input: NoInput,
  run: async (ctx: Ctx): Promise<{ deleted: true }> => {
    requireFullKey(ctx.actor, WHAT);
    const gone = await dbOf(ctx).delete(projectWebhooks).where(eq(projectWebhooks.projectId, ctx.projectId)).returning({ id: projectWebhooks.projectId });
    if (!gone.length) throw notFound("Webhook of project", ctx.projectId);
    return { deleted: true };
  },
});

/** Sends a `webhook.test` event now, to check the receiver and its verification. */
export const testWebhook = verb({
  name: "testWebhook",
  description: "Sends a webhook.test event now",
  kind: "mutation",
  role: "admin",
  input: NoInput,
  run: async (ctx: Ctx): Promise<WebhookDelivery> => {
    requireFullKey(ctx.actor, WHAT);
    if (!(await getWebhook(ctx))) throw notFound("Webhook of project", ctx.projectId);
    const delivery = await raiseAlert(ctx.deps, ctx.projectId, {
      event: "webhook.test",
      dedupe: `test:${ctx.deps.ids("webhookDelivery")}`,
      data: { message: "A test event sent from Hone" },
    });
    if (!delivery) throw notFound("Webhook of project", ctx.projectId);
    return delivery;
  },
});

/** The project's deliveries, newest first. */
export const listWebhookDeliveries = verb({
  name: "webhookDeliveries",
  description: "The project's alert deliveries, newest first",
  kind: "query",
  role: "viewer",
  input: ListDeliveriesInput,
  run: async (ctx: Ctx, raw?: { first?: number | null; after?: string | null }): Promise<WebhookDelivery[]> => {
    const input = parseInput(ListDeliveriesInput, raw) ?? {};
    const rows = await dbOf(ctx)
      .select()
      .from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.projectId, ctx.projectId), input.after ? lt(webhookDeliveries.id, input.after) : undefined))
      .orderBy(desc(webhookDeliveries.id))
      .limit(input.first ?? 50);
    return rows.map(toDelivery);
  },
});
