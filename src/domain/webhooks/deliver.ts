import { createHmac } from "node:crypto";
import { and, eq, gt, isNull, lt, lte, sql } from "drizzle-orm";
import { systemCtx } from "../context";
import type { Deps } from "../deps";
import { apiKeys, limitCounters, limits, projectWebhooks, webhookDeliveries } from "../../db/schema";
import { DomainError } from "../../core/errors";
import { postJson } from "../../providers/http";
import { upstreamPolicy } from "../../providers/upstream-guard";
import { enqueueJob } from "../jobs";
import { toDelivery, webhookSecret } from "./webhook-store";
import type { WebhookDelivery, WebhookEvent } from "./schemas";

// Alerts: stored once per event (a unique name per project), then posted by the job worker, signed,
// retried with the queue's backoff (2 s, 4 s, 8 s, ... up to 8 attempts over about four minutes).

export const WEBHOOK_JOB = "webhook-delivery";
const MAX_ATTEMPTS = 8;
const DELIVERY_TIMEOUT_MS = 10_000;
/** Thresholds of a budget that raise an alert, in percent of the cap. */
const THRESHOLDS = [50, 80, 100] as const;

/** `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>" under the secret>` (the Hone-Signature header). */
export function signatureOf(secret: string, timestamp: number, body: string): string {
  return `t=${timestamp},v1=${createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex")}`;
}

/**
 * Stores an alert for the project's webhook and queues its delivery; nothing when the project has
 * no webhook or the event (its `dedupe` name) was raised before.
 */
export async function raiseAlert(
  deps: Deps,
  projectId: string,
  alert: { event: WebhookEvent; dedupe: string; data: Record<string, unknown> },
): Promise<WebhookDelivery | null> {
  const ctx = systemCtx(deps, "alerts");
  const now = deps.clock();
  const id = deps.ids("webhookDelivery");
  const payload = { id, type: alert.event, createdAt: now.toISOString(), projectId, data: alert.data };
  const row = await deps.database.db.transaction(async (tx) => {
    const [hook] = await tx.select({ p: projectWebhooks.projectId }).from(projectWebhooks).where(eq(projectWebhooks.projectId, projectId));
    if (!hook) return null;
    const [inserted] = await tx
      .insert(webhookDeliveries)
      .values({ id, projectId, event: alert.event, dedupe: alert.dedupe, payload, status: "PENDING", createdAt: now, updatedAt: now })
      .onConflictDoNothing()
      .returning();
    if (!inserted) return null;
    await enqueueJob({ ...ctx, tx }, { kind: WEBHOOK_JOB, payload: { deliveryId: id }, maxAttempts: MAX_ATTEMPTS });
    return inserted;
  });
  if (row) deps.jobs.nudge();
  return row ? toDelivery(row) : null;
}

/** One delivery attempt (a job step): throws to be retried. */
export async function deliverWebhook(deps: Deps, payload: unknown, signal: AbortSignal): Promise<void> {
  const deliveryId = (payload as { deliveryId?: string }).deliveryId ?? "";
  const [d] = await deps.database.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, deliveryId));
  if (d?.status !== "PENDING") return;
  const hook = await webhookSecret(deps, d.projectId);
  const now = deps.clock();
  const record = (set: Partial<typeof webhookDeliveries.$inferInsert>) =>
    deps.database.db
      .update(webhookDeliveries)
      .set({ attempts: sql`${webhookDeliveries.attempts} + 1`, updatedAt: now, ...set })
      .where(eq(webhookDeliveries.id, d.id));
  if (!hook) {
    await record({ status: "FAILED", lastError: "the project's webhook was removed" });
    return;
  }
  const body = JSON.stringify(d.payload);
  const timestamp = Math.floor(now.getTime() / 1000);
  const headers = {
    "user-agent": "Hone-Webhooks/1",
    "hone-event": d.event,
    "hone-delivery": d.id,
    "hone-signature": signatureOf(hook.secret, timestamp, body),
  };
  let status: number | null = null;
  try {
    const call = await postJson(hook.url, headers, d.payload, "this webhook", signal, {
      timeoutMs: DELIVERY_TIMEOUT_MS,
      fetch: globalThis.fetch,
      guard: { policy: upstreamPolicy(deps.config), resolve: deps.resolveHost },
    });
    status = call.response.status;
    await call.response.body?.cancel().catch(() => {});
    call.release();
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    await record({ lastError: message.slice(0, 500), lastStatusCode: null });
    throw err;
  }
  if (status >= 200 && status < 300) {
    await record({ status: "DELIVERED", lastStatusCode: status, lastError: null, deliveredAt: now });
    return;
  }
  const message = `the receiver answered HTTP ${status}`;
  await record({ lastStatusCode: status, lastError: message });
  throw new DomainError("UPSTREAM_ERROR", message);
}

/** The delivery's last attempt failed: it is shown as failed. */
export async function failWebhookDelivery(deps: Deps, payload: unknown, reason: string): Promise<void> {
  const deliveryId = (payload as { deliveryId?: string }).deliveryId ?? "";
  await deps.database.db
    .update(webhookDeliveries)
    .set({ status: "FAILED", lastError: reason.slice(0, 500), updatedAt: deps.clock() })
    .where(eq(webhookDeliveries.id, deliveryId));
}

/** One budget's window, as the limits count it (what an alert names). */
export type SpendWindow = {
  limitId: string;
  projectId: string;
  metric: "requests" | "tokens" | "usd_day" | "usd_month";
  value: string;
  window: { start: Date; end: Date };
  cap: number;
};

/**
 * A budget's spend was written: the thresholds it crossed (50, 80, 100 %) not yet alerted in this
 * window are marked (one process wins the mark) and alerted.
 */
export async function alertOnSpend(deps: Deps, c: SpendWindow, row: { spent: number; alerted: number }): Promise<void> {
  if (c.metric !== "usd_day" && c.metric !== "usd_month") return;
  const pct = (row.spent / c.cap) * 100;
  const crossed = THRESHOLDS.filter((t) => t <= pct + 1e-9 && t > row.alerted);
  if (!crossed.length) return;
  const top = crossed[crossed.length - 1]!;
  const [marked] = await deps.database.db
    .update(limitCounters)
    .set({ alerted: top })
    .where(
      and(
        eq(limitCounters.limitId, c.limitId),
        eq(limitCounters.metric, c.metric),
        eq(limitCounters.value, c.value),
        eq(limitCounters.windowStart, c.window.start),
        lt(limitCounters.alerted, top),
      ),
    )
    .returning({ alerted: limitCounters.alerted });
  if (!marked) return;
  const [limit] = await deps.database.db.select().from(limits).where(eq(limits.id, c.limitId));
  if (!limit) return;
  for (const threshold of crossed) {
    await raiseAlert(deps, c.projectId, {
      event: "budget.threshold",
      dedupe: `budget:${c.limitId}:${c.metric}:${c.value}:${c.window.start.toISOString()}:${threshold}`,
      data: {
        limitId: limit.id,
        scope: limit.scope,
        keyId: limit.keyId,
        tagKey: limit.tagKey,
        tagValue: limit.tagValue ?? (c.value || null),
        budget: c.metric === "usd_day" ? "costPerDayUsd" : "costPerMonthUsd",
        threshold,
        spentUsd: row.spent,
        limitUsd: c.cap,
        windowStart: c.window.start.toISOString(),
        windowEnd: c.window.end.toISOString(),
      },
    });
  }
}

/**
 * Keys that expire within HONE_KEY_EXPIRY_ALERT_DAYS and were not alerted: each is marked (one
 * process wins) and alerted once. Returns how many were alerted.
 */
export async function alertExpiringKeys(deps: Deps): Promise<number> {
  const days = deps.config.keyExpiryAlertDays;
  if (days <= 0) return 0;
  const now = deps.clock();
  const soon = new Date(now.getTime() + days * 86_400_000);
  const due = await deps.database.db
    .update(apiKeys)
    .set({ expiryAlertedAt: now })
    .where(and(isNull(apiKeys.revokedAt), isNull(apiKeys.expiryAlertedAt), gt(apiKeys.expiresAt, now), lte(apiKeys.expiresAt, soon)))
    .returning({ id: apiKeys.id, projectId: apiKeys.projectId, name: apiKeys.name, expiresAt: apiKeys.expiresAt, keyHint: apiKeys.keyHint });
  for (const k of due) {
    await raiseAlert(deps, k.projectId, {
      event: "key.expiring",
      dedupe: `key-expiring:${k.id}:${k.expiresAt!.toISOString()}`,
      data: { keyId: k.id, name: k.name, prefix: `hone_sk_…${k.keyHint}`, expiresAt: k.expiresAt!.toISOString() },
    });
  }
  return due.length;
}

/** Days a delivery stays in the log. */
const DELIVERY_RETENTION_DAYS = 30;

/**
 * Counter rows of windows that ended more than two days ago (month windows: two days after their
 * month), and deliveries older than 30 days.
 */
export async function deleteOldCounters(deps: Deps): Promise<number> {
  const now = deps.clock().getTime();
  const before = new Date(now - 2 * 86_400_000);
  const gone = await deps.database.db.delete(limitCounters).where(lt(limitCounters.windowEnd, before)).returning({ id: limitCounters.limitId });
  const old = new Date(now - DELIVERY_RETENTION_DAYS * 86_400_000);
  const delivered = await deps.database.db.delete(webhookDeliveries).where(lt(webhookDeliveries.createdAt, old)).returning({ id: webhookDeliveries.id });
  return gone.length + delivered.length;
}
