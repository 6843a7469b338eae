import type { Ctx } from "../context";
import type { Config } from "../../core/config";
import { type Analysis, type Analyzer, createAnalyzer, createMasker, kindOf, type Span, stringsOf } from "../../lib/masking";
import type { Masking } from "./schemas";

// The operator's external analyzer (HONE_MASKING_ANALYZER_URL, Presidio's API), one per process
// and configuration: it adds names, places and the like to what the built-in recognizers find.
// It never fails a call: away, slow or busy, the text is masked without it and the log says so.

const analyzers = new WeakMap<Config, Analyzer | null>();
let warnedAt = 0;

function analyzerOf(config: Config): Analyzer | null {
  let a = analyzers.get(config);
  if (a === undefined) {
    a = config.maskingAnalyzer ? createAnalyzer(config.maskingAnalyzer) : null;
    analyzers.set(config, a);
  }
  return a;
}

/** The kinds the analyzer masks (<PERSON_1>): none without one. */
export const analyzerKinds = (config: Config): string[] => (config.maskingAnalyzer?.entities ?? []).map(kindOf);

/** What the log of an analysis with a failure says (never the text). */
export const ANALYZER_WARNING: Record<NonNullable<Analysis["failure"]>, string> = {
  unavailable: "the masking analyzer was unavailable: masked with the built-in recognizers only",
  timeout: "the masking analyzer did not answer in time: masked with the built-in recognizers only",
  busy: "the masking analyzer was busy: masked with the built-in recognizers only",
  partial: "the masking analyzer saw only part of this call's text (512 KB at most): the rest was masked with the built-in recognizers only",
};

/**
 * The analyzer's spans over every string in `values`, under the call's masking (none when the mode
 * is off, there is no analyzer, or the rule's kinds leave out every kind it finds). Never throws.
 */
export async function analyze(ctx: Ctx, masking: Pick<Masking, "mode" | "kinds">, values: readonly unknown[]): Promise<Analysis> {
  const analyzer = analyzerOf(ctx.deps.config);
  if (!analyzer || masking.mode === "off") return { spans: new Map(), failure: null };
  const kinds = masking.kinds;
  if (kinds && !analyzerKinds(ctx.deps.config).some((k) => kinds.includes(k))) return { spans: new Map(), failure: null };
  const out = await analyzer.analyze(
    (function* () {
      for (const v of values) yield* stringsOf(v);
    })(),
  );
  ctx.deps.metrics.maskingAnalyzer(out.failure ?? "ok");
  // Said once a minute at most: an outage is many calls.
  const now = Date.now();
  if (out.failure && out.failure !== "partial" && now - warnedAt > 60_000) {
    warnedAt = now;
    ctx.deps.logger.warn("masking analyzer failed: calls are masked with the built-in recognizers only", { reason: out.failure });
  }
  return out;
}

/**
 * Starts the analyzer over what a log stores (its payloads and error): the log's mask gets the
 * spans, and a promise the log writer waits for before the row is built (it never rejects).
 */
export function analyzeLog(
  ctx: Ctx,
  mask: { known?: Map<string, readonly Span[]>; ready?: Promise<void>; analyzer?: string | null } & Pick<Masking, "mode" | "kinds">,
  values: readonly unknown[],
): void {
  if (!analyzerOf(ctx.deps.config)) return;
  const known = (mask.known ??= new Map());
  mask.ready = analyze(ctx, mask, values).then((a) => {
    for (const [text, spans] of a.spans) known.set(text, [...(known.get(text) ?? []), ...spans]);
    if (a.failure) mask.analyzer = ANALYZER_WARNING[a.failure];
  });
}

export const hasAnalyzer = (ctx: Ctx): boolean => analyzerOf(ctx.deps.config) !== null;

/** block: the sensitive values in `value` by kind (the analyzer's too), or null when it holds none. */
export async function sensitiveIn(ctx: Ctx, masking: Masking, value: unknown): Promise<Record<string, number> | null> {
  const { spans } = await analyze(ctx, masking, [value]);
  const probe = createMasker({ recognizers: masking.recognizers, kinds: masking.kinds, known: spans });
  probe.maskValue(value);
  return probe.any ? probe.counts() : null;
}
