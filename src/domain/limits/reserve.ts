import type { Ctx } from "../context";
import { DomainError } from "../../core/errors";
import type { Usage } from "../../providers";
import { logCost, ratesFor, freshProjectOverrides, projectOverrides, withOverride } from "../pricing";
import { loadedTokenCounter, tokenCounter } from "../token-counter";
import { type Counter, counterOf, giveBack, lease, remainingOf, settle, takeLocal } from "./leases";
import { capOf, freshProjectLimits, projectLimits } from "./manage-limits";
import type { Limit, Metric } from "./schemas";
import { resetText, type Window, windowOf } from "./windows";

// The gateway's side of limits: before the upstream is called, a call reserves what it may use
// against every limit that applies to it (the project's, its key's, its tags'); when it ends it
// settles what it really used. A reservation is all or nothing: refused by one limit, it takes
// nothing from the others.

/** What a gateway call is about to send, as the limits estimate it. */
type CallShape = {
  /**
   * The target about to be called, as the logs name it (`openai:gpt-4o-mini`), and its upstream
   * (which prices a custom provider's model or a fine-tune); null for an answer from the cache,
   * which costs nothing.
   */
  model: string | null;
  upstream?: PricedUpstream | null;
  tags: Record<string, string>;
  request: unknown;
};

/** What prices a call to an upstream: its provider and model, and the price Hone was given for it (a custom provider's, a fine-tune's). */
export type PricedUpstream = { provider: string; upstreamModel: string; target: string; pricing?: { chatIn: number; chatOut: number } | null };

export type CallEnd = { answered: boolean; usage: Usage | null | undefined; costUsd: number | null };

export type Reservation = {
  /** Settles what the call really used (once; a failed call gives its tokens and cost back). */
  settle(end: CallEnd): void;
  /** Gives everything back uncounted: the call moves on to another target, which reserves at its own price. */
  release(): void;
};

type Taken = { counter: Counter; amount: number; limit: Limit };

const WINDOWED = ["requests", "tokens", "usd_day", "usd_month"] as const;
/** Attempts of one reservation before it is refused as a runaway (never reached in the tests' bursts of 1,000). */
const MAX_ROUNDS = 10_000;

/**
 * The counters of each limit (and tag value), by metric, as last used: the counter of the current
 * window without building its key, which is only done when a window turns (or for a new value).
 */
const slots = new WeakMap<Limit, Map<string, (Counter | undefined)[]>>();

function slotOf(ctx: Ctx, limit: Limit, value: string, m: number, window: Window, cap: number): Counter {
  let byValue = slots.get(limit);
  if (!byValue) slots.set(limit, (byValue = new Map()));
  let row = byValue.get(value);
  if (!row) {
    if (byValue.size >= 10_000) byValue.clear();
    byValue.set(value, (row = []));
  }
  const kept = row[m];
  if (kept && kept.window.start.getTime() === window.start.getTime()) {
    kept.cap = cap;
    return kept;
  }
  const c = counterOf(ctx.deps, { limitId: limit.id, projectId: ctx.projectId, metric: WINDOWED[m]!, value, window, cap });
  row[m] = c;
  return c;
}

/** Characters counted exactly by the tokenizer; past them, a token per 3 characters is assumed (more than any tokenizer yields). */
const EXACT_CHARS = 100_000;

/**
 * Reserves the call against the limits that apply to it, or throws RATE_LIMITED (a rate limit, or
 * a spent budget: `details.limitCode` says which). Sets the rate-limit headers of the answer on
 * ctx.replyHeaders. Null when no limit applies.
 */
export async function reserveCall(ctx: Ctx, call: CallShape): Promise<Reservation | null> {
  // What this process already knows is used without a wait (the common case on a busy gateway).
  const pl = freshProjectLimits(ctx) ?? (await projectLimits(ctx));
  if (pl.empty) return null;
  const applicable: { limit: Limit; value: string }[] = [];
  if (pl.project) applicable.push({ limit: pl.project, value: "" });
  if (ctx.actor.type === "apiKey") {
    const own = pl.byKey.get(ctx.actor.keyId);
    if (own) applicable.push({ limit: own, value: "" });
  }
  for (const [tagKey, t] of pl.byTag) {
    const v = call.tags[tagKey];
    if (v === undefined) continue;
    const one = t.values.get(v);
    if (one) applicable.push({ limit: one, value: "" });
    if (t.each) applicable.push({ limit: t.each, value: v });
  }
  if (!applicable.length) return null;

  const now = ctx.deps.clock();
  const needsTokens = applicable.some(({ limit: l }) => l.tokensPerMinute != null || l.costPerDayUsd != null || l.costPerMonthUsd != null);
  const estimate = needsTokens ? estimateCall(ctx, call, now) : { tokens: 0, costUsd: 0 };
  const est = estimate instanceof Promise ? await estimate : estimate;
  // A call Hone cannot price is never admitted under a cost cap as if it cost nothing: each limit
  // with a cost cap says whether it admits such calls (counted at what they turn out to cost).
  if (est.costUsd === null) {
    const refusing = applicable.find(({ limit: l }) => (l.costPerDayUsd != null || l.costPerMonthUsd != null) && l.unpricedCalls !== "allow");
    if (refusing) throw unpricedRefusal(ctx, call, refusing.limit, refusing.value);
  }
  const windows = WINDOWED.map((metric) => windowOf(metric, now));
  const wanted: Taken[] = [];
  for (const { limit, value } of applicable) {
    for (let m = 0; m < WINDOWED.length; m++) {
      const metric = WINDOWED[m]!;
      const cap = capOf(limit, metric);
      if (cap == null) continue;
      const counter = slotOf(ctx, limit, value, m, windows[m]!, cap);
      // Never nothing: a window already at or over its cap admits no call, whatever its estimate
      // (a cache hit, an unpriced call a limit allows, an estimate of zero tokens).
      const amount = metric === "requests" ? 1 : metric === "tokens" ? Math.max(1, est.tokens) : Math.max(MIN_USD, est.costUsd ?? 0);
      wanted.push({ counter, amount, limit });
    }
  }

  for (let round = 0; ; round++) {
    const short: Taken[] = [];
    const taken: Taken[] = [];
    for (const w of wanted) (takeLocal(w.counter, w.amount) ? taken : short).push(w);
    if (!short.length) break;
    for (const t of taken) giveBack(t.counter, t.amount);
    const leased = await Promise.all(short.map((s) => lease(ctx.deps, s.counter, s.counter.used + s.amount - s.counter.granted)));
    const refused = short.find((_, i) => !leased[i]);
    // Each granted lease moves its row toward the cap, so this ends (the database refuses once the
    // cap is reached); a call that waited on another's lease may lose the slice to others many
    // times under a burst, so only a runaway is cut short.
    if (refused || round >= MAX_ROUNDS) throw refusal(ctx, refused ?? short[0]!, now);
  }
  ctx.deps.metrics.limitCheck?.("admitted");
  if (ctx.replyHeaders) Object.assign(ctx.replyHeaders, headersOf(wanted, now));

  let settled = false;
  return {
    settle(end) {
      if (settled) return;
      settled = true;
      const tokens = end.usage ? (end.usage.prompt_tokens ?? 0) + (end.usage.completion_tokens ?? 0) : end.answered ? est.tokens : 0;
      const cost = end.answered || end.usage ? (end.costUsd ?? (end.usage ? 0 : (est.costUsd ?? 0))) : 0;
      for (const w of wanted) {
        const actual = w.counter.metric === "requests" ? 1 : w.counter.metric === "tokens" ? tokens : cost;
        settle(ctx.deps, w.counter, w.amount, actual);
      }
    },
    release() {
      if (settled) return;
      settled = true;
      for (const w of wanted) settle(ctx.deps, w.counter, w.amount, 0);
    },
  };
}

/** The least cost a call reserves under a cost cap: enough that a spent window refuses it. */
const MIN_USD = 1e-9;

function unpricedRefusal(ctx: Ctx, call: CallShape, limit: Limit, value: string): DomainError {
  const model = call.model ?? "this model";
  const message =
    `Hone has no price for ${model}, and the cost limit on ${subjectText(limit, value)} (${limit.id}) refuses calls it cannot price: ` +
    `add a price override for ${model} (pricing), or set the limit's unpricedCalls to "allow"`;
  ctx.deps.metrics.limitCheck?.("budget_exceeded");
  return new DomainError("FORBIDDEN", message, {
    limitCode: "unpriced_model",
    limitId: limit.id,
    issues: [{ message: `no price for ${model}`, path: ["model"] }],
    openAiError: { message, type: "invalid_request_error", param: "model", code: "unpriced_model" },
  });
}

const METRIC_NAMES: Record<Metric, string> = {
  requests: "requests per minute",
  tokens: "tokens per minute",
  usd_day: "cost per day",
  usd_month: "cost per month",
};

function subjectText(l: Limit, value: string): string {
  if (l.scope === "project") return "the project";
  if (l.scope === "key") return `API key ${l.keyId}`;
  return `tag ${l.tagKey}=${l.tagValue ?? value}`;
}

function refusal(ctx: Ctx, t: Taken, now: Date): DomainError {
  const c = t.counter;
  const budget = c.metric === "usd_day" || c.metric === "usd_month";
  const waitMs = c.window.end.getTime() - now.getTime();
  const retryAfterSeconds = Math.max(1, Math.ceil(waitMs / 1000));
  const fmt = (n: number) => (budget ? `$${n.toFixed(n < 1 ? 4 : 2)}` : Math.ceil(n).toLocaleString("en-US"));
  const what = `${METRIC_NAMES[c.metric]} of ${subjectText(t.limit, c.value)}`;
  const message =
    t.amount > c.cap
      ? `This call needs an estimated ${fmt(t.amount)}, more than the whole limit on ${what} (${fmt(c.cap)}): ask for fewer tokens (max_tokens), or raise the limit`
      : budget
        ? `Budget exceeded: the ${what} (${fmt(c.cap)}) is spent; it starts again in ${resetText(waitMs)}`
        : `Rate limit reached on ${what}: limit ${fmt(c.cap)}, requested ${fmt(t.amount)}; try again in ${resetText(waitMs)}`;
  const code = budget ? "budget_exceeded" : "rate_limit_exceeded";
  ctx.deps.metrics.limitCheck?.(budget ? "budget_exceeded" : "rate_limited");
  const headers: Record<string, string> = { ...headersOf([t], now) };
  return new DomainError("RATE_LIMITED", message, {
    retryAfterSeconds,
    headers,
    limitCode: code,
    limitId: t.limit.id,
    openAiError: { message, type: budget ? "insufficient_quota" : c.metric === "tokens" ? "tokens" : "requests", param: null, code },
  });
}

/**
 * OpenAI's rate-limit headers for the tightest limit of each kind (the least left), and Hone's
 * budget headers for the tightest budget.
 */
function headersOf(taken: Taken[], now: Date): Record<string, string> {
  const tightest = new Map<string, Counter>();
  for (const { counter: c } of taken) {
    const kind = c.metric === "usd_day" || c.metric === "usd_month" ? "budget" : c.metric;
    const was = tightest.get(kind);
    if (!was || remainingOf(c) < remainingOf(was)) tightest.set(kind, c);
  }
  const h: Record<string, string> = {};
  for (const [kind, c] of tightest) {
    const reset = resetText(c.window.end.getTime() - now.getTime());
    if (kind === "budget") {
      h["x-hone-budget-limit-usd"] = String(c.cap);
      h["x-hone-budget-remaining-usd"] = remainingOf(c).toFixed(6);
      h["x-hone-budget-reset"] = reset;
    } else {
      h[`x-ratelimit-limit-${kind}`] = String(c.cap);
      h[`x-ratelimit-remaining-${kind}`] = String(Math.floor(remainingOf(c)));
      h[`x-ratelimit-reset-${kind}`] = reset;
    }
  }
  return h;
}

/** Output tokens reserved for a call that does not bound them (max_tokens and the like absent). */
const outputCapOf = (r: Record<string, unknown>, fallback: number): number => {
  const n = [r.max_completion_tokens, r.max_tokens, r.max_output_tokens].find((v) => typeof v === "number" && v > 0) as number | undefined;
  const choices = typeof r.n === "number" && r.n > 1 ? r.n : 1;
  return (n ?? fallback) * choices;
};

/**
 * The call's tokens (its input counted by the o200k tokenizer, plus its output bound) and their
 * cost at the target's price now (the project's override first). A target with no known price (a
 * custom provider's model without one) has a null cost: the limits decide whether it is admitted.
 */
function estimateCall(ctx: Ctx, call: CallShape, now: Date): Estimate | Promise<Estimate> {
  // The tokenizer and the project's price overrides, once loaded, are used without a wait.
  const count = loadedTokenCounter();
  const overrides = freshProjectOverrides(ctx);
  if (count && overrides) return estimateWith(ctx, call, now, count, overrides);
  return Promise.all([tokenCounter(), projectOverrides(ctx)]).then(([c, o]) => estimateWith(ctx, call, now, c, o));
}

/** The call's tokens, and its cost at the target's price (null: Hone has no price for it). */
type Estimate = { tokens: number; costUsd: number | null };

function estimateWith(
  ctx: Ctx,
  call: CallShape,
  now: Date,
  count: (text: string) => number,
  overrides: Awaited<ReturnType<typeof projectOverrides>>,
): Estimate {
  const r = (call.request ?? {}) as Record<string, unknown>;
  const texts: string[] = [];
  let extra = 0;
  if (Array.isArray(r.messages)) {
    for (const m of r.messages as Record<string, unknown>[]) {
      extra += 4;
      collectText(m?.content, texts);
      if (m?.tool_calls) texts.push(JSON.stringify(m.tool_calls));
    }
    if (Array.isArray(r.tools)) texts.push(JSON.stringify(r.tools));
  }
  const embeddings = r.input !== undefined && !Array.isArray(r.messages);
  if (embeddings) {
    const input = r.input;
    if (typeof input === "string") texts.push(input);
    else if (Array.isArray(input))
      for (const i of input) {
        if (typeof i === "string") texts.push(i);
        else if (Array.isArray(i)) extra += i.length;
        else if (typeof i === "number") extra += 1;
      }
  }
  let chars = 0;
  let input = extra;
  for (const t of texts) {
    const exact = Math.max(0, Math.min(t.length, EXACT_CHARS - chars));
    input += exact === t.length ? counted(count, t) : count(t.slice(0, exact)) + Math.ceil((t.length - exact) / 3);
    chars += t.length;
  }
  const output = embeddings ? 0 : outputCapOf(r, ctx.deps.config.limitDefaultOutputTokens);
  if (call.model === null) return { tokens: input + output, costUsd: 0 };
  // The same call shape to the same target costs the same within a minute, for as long as the
  // project's overrides are the ones read (a change here, or a re-read, is a new generation).
  const up = call.upstream;
  const target = up ? `${up.target}\u0000${up.upstreamModel}\u0000${up.pricing ? `${up.pricing.chatIn}/${up.pricing.chatOut}` : ""}` : "";
  const key = `${ctx.projectId}\u0000${generationOf(overrides)}\u0000${call.model}\u0000${target}\u0000${input}\u0000${output}\u0000${Math.floor(now.getTime() / 60_000)}`;
  let costUsd = costMemo.get(key);
  if (costUsd === undefined) {
    const [provider, ...rest] = call.model.split(":");
    const table = up
      ? ratesFor(up.provider, up.upstreamModel, now, up.pricing ? { ...up.pricing, name: up.target } : null)
      : ratesFor(provider ?? null, rest.join(":") || null, now, null);
    const rates = withOverride(overrides, call.model, now, table);
    costUsd = rates ? logCost({ prompt_tokens: input, completion_tokens: output, total_tokens: input + output }, rates, { answered: true }).costUsd : null;
    if (costMemo.size >= MEMO_MAX) costMemo.clear();
    costMemo.set(key, costUsd);
  }
  return { tokens: input + output, costUsd };
}

/** A number per list of overrides read: a price memoised with one list is never used with the next. */
const generations = new WeakMap<object, number>();
let lastGeneration = 0;
function generationOf(overrides: object): number {
  let g = generations.get(overrides);
  if (g === undefined) generations.set(overrides, (g = ++lastGeneration));
  return g;
}

// Calls repeat themselves (a system prompt on every call, the same tools): counted texts and priced
// shapes are remembered, a bounded number of them, so a repeated one costs a map lookup.
const MEMO_MAX = 10_000;
/** Longest text remembered, and the most characters the remembered texts hold together (about 16 MB). */
const MEMO_TEXT_CHARS = 8_000;
const MEMO_TOTAL_CHARS = 8_000_000;
const countMemo = new Map<string, number>();
let countMemoChars = 0;
const costMemo = new Map<string, number | null>();

function counted(count: (text: string) => number, t: string): number {
  if (t.length > MEMO_TEXT_CHARS) return count(t);
  let n = countMemo.get(t);
  if (n === undefined) {
    n = count(t);
    if (countMemo.size >= MEMO_MAX || countMemoChars + t.length > MEMO_TOTAL_CHARS) {
      countMemo.clear();
      countMemoChars = 0;
    }
    countMemo.set(t, n);
    countMemoChars += t.length;
  }
  return n;
}

function collectText(content: unknown, out: string[]): void {
  if (typeof content === "string") out.push(content);
  else if (Array.isArray(content))
    for (const p of content) {
      if (p && typeof p === "object" && typeof (p as { text?: unknown }).text === "string") out.push((p as { text: string }).text);
    }
}
