import { findSpans, type Recognizer, recognizersFor } from "../src/lib/masking";
import type { Sample } from "./pii-corpus";

// Scores the recognizers on a labelled corpus: per kind, the planted values found (recall) and the
// spans that were planted values of that kind (precision). A sample in JSON is scored on its text,
// as masking reads it (parsed: a private key's line breaks are real ones).

export type Score = {
  kind: string;
  planted: number;
  found: number;
  spans: number;
  right: number;
  recall: number;
  precision: number;
  misses: string[];
  wrong: string[];
};

export function score(corpus: Sample[], recognizers: readonly Recognizer[] = recognizersFor()): Score[] {
  const by = new Map<string, Score>();
  const of = (kind: string) => {
    let s = by.get(kind);
    if (!s) {
      s = { kind, planted: 0, found: 0, spans: 0, right: 0, recall: 1, precision: 1, misses: [], wrong: [] };
      by.set(kind, s);
    }
    return s;
  };
  for (const sample of corpus) {
    const text = sample.text.startsWith("{") ? (JSON.parse(sample.text) as { messages: { content: string }[] }).messages[0]!.content : sample.text;
    const spans = findSpans(text, recognizers);
    // Where each planted value stands in the text.
    const places = sample.planted.map((p) => ({ ...p, start: text.indexOf(p.value), end: text.indexOf(p.value) + p.value.length }));
    for (const p of places) {
      const s = of(p.kind);
      s.planted++;
      if (spans.some((x) => x.kind === p.kind && x.start <= p.start && x.end >= p.end)) s.found++;
      else if (s.misses.length < 5) s.misses.push(p.value);
    }
    for (const x of spans) {
      const s = of(x.kind);
      s.spans++;
      if (places.some((p) => p.kind === x.kind && x.start < p.end && x.end > p.start)) s.right++;
      else if (s.wrong.length < 5) s.wrong.push(text.slice(Math.max(0, x.start - 15), x.end + 15));
    }
  }
  for (const s of by.values()) {
    s.recall = s.planted ? s.found / s.planted : 1;
    s.precision = s.spans ? s.right / s.spans : 1;
  }
  return [...by.values()].sort((a, b) => a.kind.localeCompare(b.kind));
}
