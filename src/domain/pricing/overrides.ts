import { and, asc, eq } from "drizzle-orm";
import { type ListPageInput, orderedPage } from "../list-page";
import { type Ctx, dbOf } from "../context";
import { liveEntry, readOrKnown } from "../../db/read-or-known";
import { priceOverrides } from "../../db/schema";
import { DomainError, notFound, parseInput } from "../../core/errors";
import { requireRole } from "../projects";
import { CreatePriceOverrideInput, type PriceOverride, PriceOverrideIdInput } from "./schemas";
import type { GivenRates, Rates } from "./price-usage";

/** Overrides a project may hold. */
export const MAX_PRICE_OVERRIDES = 1_000;
/** How long a process prices with the overrides it read (another process's change shows within it). */
const OVERRIDES_TTL_MS = 30_000;

type Row = typeof priceOverrides.$inferSelect;
const toOverride = (r: Row): PriceOverride => ({
  id: r.id,
  model: r.model,
  effectiveFrom: r.effectiveFrom,
  rates: r.rates ?? null,
  multiplier: r.multiplier ?? null,
  usdPerHour: r.usdPerHour ?? null,
  note: r.note ?? null,
  createdAt: r.createdAt,
});

/** A page of the project's overrides, by model then date (list-page.ts). */
export async function listPriceOverrides(ctx: Ctx, raw?: ListPageInput): Promise<PriceOverride[]> {
  const scope = eq(priceOverrides.projectId, ctx.projectId);
  const page = await orderedPage(ctx, raw, {
    table: priceOverrides,
    id: priceOverrides.id,
    by: [priceOverrides.model, priceOverrides.effectiveFrom],
    scope,
    what: "project's price overrides",
  });
  const rows = await dbOf(ctx)
    .select()
    .from(priceOverrides)
    .where(and(scope, page.after))
    .orderBy(...page.order)
    .limit(page.limit);
  return rows.map(toOverride);
}

/** All the project's overrides (at most MAX_PRICE_OVERRIDES), by model then date: what prices its calls. */
export async function allPriceOverrides(ctx: Ctx): Promise<PriceOverride[]> {
  const rows = await dbOf(ctx)
    .select()
    .from(priceOverrides)
    .where(eq(priceOverrides.projectId, ctx.projectId))
    .orderBy(asc(priceOverrides.model), asc(priceOverrides.effectiveFrom), asc(priceOverrides.id))
    .limit(MAX_PRICE_OVERRIDES);
  return rows.map(toOverride);
}

/**
 * A project's own price for a model from a date on: its rates, or a multiplier of the price
 * table's. Calls logged afterwards are priced with it; logs already stored keep their cost until
 * recalculated (recalculateCosts).
 */
export async function createPriceOverride(ctx: Ctx, raw: CreatePriceOverrideInput): Promise<PriceOverride> {
  // Prices are what cost caps count with (a multiplier of 0 would lift every budget): admin work.
  requireRole(ctx.actor, "admin", "create price overrides");
  const input = parseInput(CreatePriceOverrideInput, raw);
  const db = dbOf(ctx);
  const existing = await db.$count(priceOverrides, eq(priceOverrides.projectId, ctx.projectId));
  if (existing >= MAX_PRICE_OVERRIDES) {
    throw new DomainError("VALIDATION", `A project has at most ${MAX_PRICE_OVERRIDES} price overrides; delete one first`, {
      issues: [{ message: `at most ${MAX_PRICE_OVERRIDES} price overrides`, path: ["model"] }],
    });
  }
  const rates = input.rates ? Object.fromEntries(Object.entries(input.rates).filter(([, v]) => v !== undefined)) : null;
  const [row] = await db
    .insert(priceOverrides)
    .values({
      id: ctx.deps.ids("priceOverride"),
      projectId: ctx.projectId,
      model: input.model,
      effectiveFrom: input.effectiveFrom ?? new Date(0),
      rates: rates as Record<string, number> | null,
      multiplier: input.multiplier ?? null,
      usdPerHour: input.usdPerHour ?? null,
      note: input.note ?? null,
      createdAt: ctx.deps.clock(),
    })
    .returning();
  ctx.deps.caches.priceOverrides.delete(ctx.projectId);
  return toOverride(row!);
}

export async function deletePriceOverride(ctx: Ctx, raw: { id: string }): Promise<{ id: string; deleted: true }> {
  requireRole(ctx.actor, "admin", "delete price overrides");
  const { id } = parseInput(PriceOverrideIdInput, raw);
  const gone = await dbOf(ctx)
    .delete(priceOverrides)
    .where(and(eq(priceOverrides.projectId, ctx.projectId), eq(priceOverrides.id, id)))
    .returning({ id: priceOverrides.id });
  if (!gone.length) throw notFound("Price override", id);
  ctx.deps.caches.priceOverrides.delete(ctx.projectId);
  return { id, deleted: true };
}

/** The project's overrides when this process read them less than 30 s ago (no wait), else null. */
export function freshProjectOverrides(ctx: Ctx): PriceOverride[] | null {
  const now = ctx.deps.clock().getTime();
  return liveEntry(ctx.deps.caches.priceOverrides, ctx.projectId, OVERRIDES_TTL_MS, now, (kept) => readOverrides(ctx, kept, now), ctx.deps.logger);
}

/**
 * The project's overrides as this process prices with them: read at most every 30 s; while the
 * database is away (or slower than the gateway's read grace), the ones last read, or none when
 * this process never read them: a call is served and priced at the list price rather than held
 * until the database answers (recalculation corrects it afterwards).
 */
export async function projectOverrides(ctx: Ctx): Promise<PriceOverride[]> {
  return freshProjectOverrides(ctx) ?? readOverrides(ctx, ctx.deps.caches.priceOverrides.get(ctx.projectId), ctx.deps.clock().getTime());
}

/** Reads them into the cache; a refresh (`kept` still live) writes only over the entry it started from. */
async function readOverrides(ctx: Ctx, kept: { value: PriceOverride[]; expires: number } | undefined, now: number): Promise<PriceOverride[]> {
  const cache = ctx.deps.caches.priceOverrides;
  const read = await readOrKnown(ctx.deps.database, () => allPriceOverrides(ctx), { value: kept?.value ?? [] });
  if (kept !== undefined && kept.expires > now && cache.get(ctx.projectId) !== kept) return read.value;
  if (cache.size >= 10_000) cache.delete(cache.keys().next().value!);
  cache.set(ctx.projectId, { value: read.value, expires: now + (read.fresh ? OVERRIDES_TTL_MS : 1_000) });
  return read.value;
}

const scaled = (rates: Rates, m: number): Rates =>
  Object.fromEntries(
    Object.entries(rates).map(([k, r]) => [
      k,
      r === undefined ? r : typeof r === "number" ? r * m : { base: r.base * m, tiers: r.tiers.map((t) => ({ start: t.start, price: t.price * m })) },
    ]),
  );

/**
 * The rates of a call to `model` at `at`: the override in force (the latest that started at or
 * before the call), applied to the table's rates (`base`) when it is a multiplier; else `base`.
 */
export function withOverride(overrides: readonly PriceOverride[], model: string | null, at: Date, base: GivenRates | null): GivenRates | null {
  if (!model || !overrides.length) return base;
  let found: PriceOverride | null = null;
  for (const o of overrides) {
    if (o.model !== model || o.effectiveFrom.getTime() > at.getTime()) continue;
    if (!found || o.effectiveFrom.getTime() >= found.effectiveFrom.getTime()) found = o;
  }
  if (!found) return base;
  const since = found.effectiveFrom.getTime() > 0 ? ` from ${found.effectiveFrom.toISOString().slice(0, 10)}` : "";
  if (found.rates || found.usdPerHour != null) {
    return { rates: found.rates ?? {}, version: `override ${found.id}${since}`, ...(found.usdPerHour != null ? { usdPerHour: found.usdPerHour } : {}) };
  }
  if (!base) return null;
  return { rates: scaled(base.rates, found.multiplier ?? 1), version: `${base.version} × ${found.multiplier} (override ${found.id}${since})` };
}
