import { builtInRecognizers, type PhoneRegion, type Recognizer, type Span } from "./recognizers";

// Masking one call or one log: every sensitive value found becomes a placeholder of its kind,
// numbered in the order values first appear (<EMAIL_1>, <EMAIL_2>); one value keeps one placeholder
// throughout (the request, the answer, the error). The masker remembers which placeholder stands
// for which value, for the answer of a call masked before the provider (restore), and only for
// as long as the masker lives: nothing of it is stored.

/** Kinds found and how many values of each (never the values). */
export type MaskedCounts = Record<string, number>;

export type Masker = {
  /** The text with every value found replaced by its placeholder. */
  maskText(text: string): string;
  /** A JSON value with every string masked (object keys are left as they are). */
  maskValue<T>(value: T): T;
  /** Values masked so far, by kind. */
  counts(): MaskedCounts;
  /** Whether anything was masked. */
  readonly any: boolean;
  /** The text with every placeholder this masker made put back to its value. */
  restore(text: string): string;
  /** The same inside the text of a JSON document (a tool call's arguments): each value put back escaped as a JSON string's content. */
  restoreJson(text: string): string;
  /** A JSON value with every string restored. */
  restoreValue<T>(value: T): T;
};

const recognizerCache = new Map<string, Recognizer[]>();

/** The built-in recognizers for a phone region, made once per region. */
export function recognizersFor(region: PhoneRegion = "US"): Recognizer[] {
  const key = String(region);
  let list = recognizerCache.get(key);
  if (!list) {
    list = builtInRecognizers({ phoneRegion: region });
    recognizerCache.set(key, list);
  }
  return list;
}

/**
 * Spans of every recognizer over a text, none overlapping: recognizers run in their order (most
 * specific first), each over the text with what earlier ones found blanked out, so a card number
 * is never also a phone number and the costly recognizers at the end see less.
 */
export function findSpans(
  text: string,
  recognizers: readonly Recognizer[],
  kinds?: ReadonlySet<string> | null,
  /** Spans already known for this text (an external analyzer's): taken first. */
  known?: readonly Span[],
): Span[] {
  const out: Span[] = [];
  let seen = text;
  const finders: { kind: string; find(t: string): Span[] }[] = known?.length
    ? [{ kind: "", find: () => known.filter((s) => !kinds || kinds.has(s.kind)) }, ...recognizers]
    : [...recognizers];
  for (const r of finders) {
    if (kinds && r.kind && !kinds.has(r.kind)) continue;
    const found = r.find(seen);
    if (!found.length) continue;
    found.sort((a, b) => a.start - b.start || b.end - a.end);
    let end = -1;
    let blanked = "";
    let at = 0;
    for (const s of found) {
      if (s.start < end) continue;
      out.push({ kind: s.kind, start: s.start, end: s.end });
      end = s.end;
      blanked += seen.slice(at, s.start) + BLANK.repeat(s.end - s.start);
      at = s.end;
    }
    seen = blanked + seen.slice(at);
  }
  return out.sort((a, b) => a.start - b.start);
}

/** What a found value is blanked with for the recognizers after it: no recognizer's pattern holds it. */
const BLANK = "\u00a4";

/** Shortest text that can hold a value any recognizer finds. */
const MIN_TEXT = 6;
/** A placeholder: <KIND_N>. */
export const PLACEHOLDER = /<([A-Z][A-Z0-9_]{0,40})_(\d{1,6})>/g;

export function createMasker(
  opts: {
    recognizers?: readonly Recognizer[];
    kinds?: readonly string[] | null;
    /** Spans an external analyzer found, by the exact text it found them in (read when a text is masked: it may be filled later). */
    known?: ReadonlyMap<string, readonly Span[]>;
  } = {},
): Masker {
  const recognizers = opts.recognizers ?? recognizersFor();
  const known = opts.known;
  const kinds = opts.kinds?.length ? new Set(opts.kinds) : null;
  const byValue = new Map<string, string>();
  const byPlaceholder = new Map<string, string>();
  const counts: MaskedCounts = {};
  /** The last number given per kind: placeholders already in a text (masked before) are not given again. */
  const numbered: Record<string, number> = {};
  let any = false;

  const placeholderOf = (kind: string, value: string) => {
    const k = `${kind}\u0000${value}`;
    let p = byValue.get(k);
    if (!p) {
      counts[kind] = (counts[kind] ?? 0) + 1;
      numbered[kind] = (numbered[kind] ?? 0) + 1;
      p = `<${kind}_${numbered[kind]}>`;
      byValue.set(k, p);
      byPlaceholder.set(p, value);
      any = true;
    }
    return p;
  };

  const maskText = (text: string): string => {
    if (text.length < MIN_TEXT && !known?.has(text)) return text;
    // A data URL (an image, a file) is content, not prose: its base64 would read as a token.
    if (text.startsWith("data:") && /^data:[\w.+-]+\/[\w.+-]+;base64,/.test(text)) return text;
    const spans = findSpans(text, recognizers, kinds, known?.get(text));
    if (!spans.length) return text;
    if (text.includes("<")) {
      for (const m of text.matchAll(PLACEHOLDER)) numbered[m[1]!] = Math.max(numbered[m[1]!] ?? 0, Number(m[2]));
    }
    let out = "";
    let at = 0;
    for (const s of spans) {
      out += text.slice(at, s.start) + placeholderOf(s.kind, text.slice(s.start, s.end));
      at = s.end;
    }
    return out + text.slice(at);
  };

  const walk = (v: unknown, f: (s: string) => string, depth: number): unknown => {
    if (typeof v === "string") return f(v);
    if (v === null || typeof v !== "object" || depth > 64) return v;
    if (Array.isArray(v)) {
      let changed = false;
      const out = v.map((x) => {
        const y = walk(x, f, depth + 1);
        if (y !== x) changed = true;
        return y;
      });
      return changed ? out : v;
    }
    let changed = false;
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      const y = walk(x, f, depth + 1);
      if (y !== x) changed = true;
      out[k] = y;
    }
    return changed ? out : v;
  };

  const restore = (text: string): string => {
    if (!any || text.indexOf("<") < 0) return text;
    return text.replace(PLACEHOLDER, (p) => byPlaceholder.get(p) ?? p);
  };

  const restoreJson = (text: string): string => {
    if (!any || text.indexOf("<") < 0) return text;
    return text.replace(PLACEHOLDER, (p) => {
      const v = byPlaceholder.get(p);
      return v === undefined ? p : JSON.stringify(v).slice(1, -1);
    });
  };

  return {
    maskText,
    restoreJson,
    maskValue: <T>(value: T) => {
      // Placeholders already in the value (masked before, then added to) keep their numbers.
      walk(
        value,
        (t) => {
          if (t.includes("<")) for (const m of t.matchAll(PLACEHOLDER)) numbered[m[1]!] = Math.max(numbered[m[1]!] ?? 0, Number(m[2]));
          return t;
        },
        0,
      );
      return walk(value, maskText, 0) as T;
    },
    counts: () => ({ ...counts }),
    get any() {
      return any;
    },
    restore,
    restoreValue: <T>(value: T) => walk(value, restore, 0) as T,
  };
}

/**
 * Puts placeholders back in a text that arrives in pieces (a stream's deltas): a piece ending in
 * what may be the start of a placeholder ("<EMA") holds that end back until the next piece says
 * whether it is one. `end()` gives what is held back.
 */
export function createStreamRestorer(masker: Pick<Masker, "restore" | "restoreJson">, json = false): { push(piece: string): string; end(): string } {
  let held = "";
  const restore = json ? masker.restoreJson : masker.restore;
  return {
    push(piece) {
      // Most pieces hold no placeholder and nothing is held back: passed on as they are.
      if (!held && piece.indexOf("<") < 0) return piece;
      const text = held + piece;
      // The last "<" that is not closed, and could still open a placeholder, is held back.
      const open = text.lastIndexOf("<");
      if (open >= 0 && text.indexOf(">", open) < 0 && /^<[A-Z0-9_]{0,48}$/.test(text.slice(open))) {
        held = text.slice(open);
        return restore(text.slice(0, open));
      }
      held = "";
      return restore(text);
    },
    end() {
      const rest = held;
      held = "";
      return restore(rest);
    },
  };
}
