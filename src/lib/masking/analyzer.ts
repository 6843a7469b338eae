import type { Span } from "./recognizers";

// An external analyzer the operator runs (Microsoft Presidio's analyzer service, or anything that
// answers its API): it finds what a pattern cannot (names, addresses, places). Its answer has a
// deadline; when it is away, slow, busy or answers nonsense, the text is masked with the built-in
// recognizers only and the outcome says so. Texts go in one request (joined, each found span
// mapped back to its own text), at most MAX_BYTES of them per request and MAX_REQUESTS requests
// per analysis; what lies past that is not analyzed, and said.
//
// Presidio: POST {url}/analyze {text, language, entities, score_threshold} ->
// [{entity_type, start, end, score}] (offsets in characters of the text).

export type AnalyzerOptions = {
  url: string;
  /** How long one analysis (all its requests) may take. */
  deadlineMs: number;
  /** The analyzer's entity types asked for (PERSON, LOCATION, NRP, …); each masked as its own kind. */
  entities: readonly string[];
  language: string;
  /** Spans scored lower are not masked. */
  minScore: number;
  /** Analyses in flight at once on this process; past it a text is masked without the analyzer. */
  maxInFlight?: number;
  fetch?: typeof fetch;
};

/** What one analysis found: spans per text (only texts with any), and whether the analyzer saw all of it. */
export type Analysis = {
  spans: Map<string, Span[]>;
  /** null: every text was analyzed; otherwise why not (the analyzer was away, slow or busy, or texts were past the cap). */
  failure: null | "unavailable" | "timeout" | "busy" | "partial";
};

export type Analyzer = {
  readonly entities: readonly string[];
  analyze(texts: Iterable<string>): Promise<Analysis>;
};

/** Bytes of text one request carries at most. */
const MAX_BYTES = 64 * 1024;
/** Requests one analysis makes at most (so at most 512 KB of text is analyzed per call or batch). */
const MAX_REQUESTS = 8;
/** Texts shorter than this hold no name worth a request. */
const MIN_TEXT = 3;
/** What joins texts in one request: a paragraph break, so no entity runs from one text into the next. */
const JOIN = "\n\n";

export function createAnalyzer(opts: AnalyzerOptions): Analyzer {
  const doFetch = opts.fetch ?? fetch;
  const maxInFlight = opts.maxInFlight ?? 64;
  const endpoint = `${opts.url.replace(/\/+$/, "")}/analyze`;
  let inFlight = 0;

  /** One request over a batch of texts; spans mapped back to each text. */
  async function request(batch: string[], signal: AbortSignal, into: Map<string, Span[]>): Promise<void> {
    const starts: number[] = [];
    let text = "";
    for (const t of batch) {
      if (text) text += JOIN;
      starts.push(text.length);
      text += t;
    }
    const res = await doFetch(endpoint, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify({ text, language: opts.language, entities: opts.entities, score_threshold: opts.minScore }),
      signal,
    });
    if (!res.ok) throw new Error(`analyzer answered ${res.status}`);
    const found: unknown = await res.json();
    if (!Array.isArray(found)) throw new Error("analyzer answered something other than a list of entities");
    const wanted = new Set(opts.entities);
    // The analyzer counts characters (code points); a JS string counts UTF-16 units.
    const unitOf = /[\uD800-\uDFFF]/.test(text) ? codePointUnits(text) : null;
    for (const f of found.slice(0, 100_000)) {
      if (!f || typeof f !== "object") continue;
      const { entity_type: type, score } = f as Record<string, unknown>;
      let { start, end } = f as Record<string, unknown>;
      if (typeof type !== "string" || !wanted.has(type) || !Number.isInteger(start) || !Number.isInteger(end)) continue;
      if (typeof score === "number" && score < opts.minScore) continue;
      if (unitOf) {
        start = unitOf[start as number];
        end = unitOf[end as number];
        if (start === undefined || end === undefined) continue;
      }
      if (typeof start !== "number" || typeof end !== "number") continue;
      if (!(start >= 0 && end > start && end <= text.length)) continue;
      // The text the span lies in (a span across two texts is not one value: dropped).
      let i = starts.length - 1;
      while (i > 0 && starts[i]! > start) i--;
      const t = batch[i]!;
      const s = start - starts[i]!;
      const e = end - starts[i]!;
      if (e > t.length) continue;
      const kind = kindOf(type);
      const list = into.get(t) ?? [];
      list.push({ kind, start: s, end: e });
      into.set(t, list);
    }
  }

  return {
    entities: opts.entities,
    async analyze(texts) {
      const spans = new Map<string, Span[]>();
      const batches: string[][] = [];
      let batch: string[] = [];
      let bytes = 0;
      let partial = false;
      const seen = new Set<string>();
      for (const t of texts) {
        if (t.length < MIN_TEXT || seen.has(t)) continue;
        seen.add(t);
        const size = Buffer.byteLength(t) + JOIN.length;
        if (size > MAX_BYTES) {
          partial = true;
          continue;
        }
        if (bytes + size > MAX_BYTES && batch.length) {
          batches.push(batch);
          batch = [];
          bytes = 0;
        }
        if (batches.length >= MAX_REQUESTS) {
          partial = true;
          break;
        }
        batch.push(t);
        bytes += size;
      }
      if (batch.length && batches.length < MAX_REQUESTS) batches.push(batch);
      if (!batches.length) return { spans, failure: partial ? "partial" : null };
      if (inFlight >= maxInFlight) return { spans, failure: "busy" };
      inFlight++;
      const signal = AbortSignal.timeout(opts.deadlineMs);
      try {
        await Promise.all(batches.map((b) => request(b, signal, spans)));
        return { spans, failure: partial ? "partial" : null };
      } catch (err) {
        // Half an answer is no answer: the built-in recognizers mask the text alone.
        const timedOut = signal.aborted || (err instanceof Error && (err.name === "TimeoutError" || err.name === "AbortError"));
        return { spans: new Map(), failure: timedOut ? "timeout" : "unavailable" };
      } finally {
        inFlight--;
      }
    },
  };
}

/** For each code point's index in a text, the index of its first UTF-16 unit (and one past the end). */
function codePointUnits(text: string): number[] {
  const out: number[] = [];
  let unit = 0;
  for (const ch of text) {
    out.push(unit);
    unit += ch.length;
  }
  out.push(unit);
  return out;
}

/** The kind an analyzer's entity type is masked as: its name in capitals (<PERSON_1>, <LOCATION_1>). */
export function kindOf(entityType: string): string {
  const k = entityType
    .toUpperCase()
    .replace(/[^A-Z0-9_]/g, "_")
    .slice(0, 30);
  return /^[A-Z]/.test(k) ? k : `X_${k}`.slice(0, 30);
}

/** Every string in a JSON value (object keys left out), depth-bounded, for an analysis. */
export function* stringsOf(value: unknown, depth = 0): Generator<string> {
  if (typeof value === "string") {
    // A data URL (an image, a file) is content, not prose.
    if (!value.startsWith("data:")) yield value;
    return;
  }
  if (value === null || typeof value !== "object" || depth > 64) return;
  if (Array.isArray(value)) {
    for (const v of value) yield* stringsOf(v, depth + 1);
    return;
  }
  for (const v of Object.values(value)) yield* stringsOf(v, depth + 1);
}
