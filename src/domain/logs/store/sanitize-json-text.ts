// Postgres cannot store two things a JSON text may legally hold: the NUL character (neither text
// nor jsonb) and a lone UTF-16 surrogate (jsonb rejects the escape). A log row travels to the
// database as one JSON text (logRow), so it is cleaned there, as text, once per row: JSON.stringify
// writes both as \u escapes, and text kept from a parse (json-text.ts) cannot hold them raw either
// (JSON forbids raw control characters in strings; decoded UTF-8 has no lone surrogates), so only
// escapes need looking at. Each becomes U+FFFD, the replacement character.
//
// The scan jumps from backslash to backslash (indexOf, native): a row without any escape costs one
// indexOf, and clean rows are returned as they are, without a copy.

const BACKSLASH = 92;
const U = 117;
const REPLACEMENT = "\\ufffd";

const hex4 = (text: string, at: number) => Number.parseInt(text.slice(at, at + 4), 16);

/** The JSON text with every `\u0000` and lone-surrogate escape replaced by `\ufffd`. */
export function sanitizeJsonText(text: string): string {
  let i = text.indexOf("\\");
  if (i < 0) return text;
  let out: string | null = null;
  let last = 0;
  while (i >= 0) {
    if (text.charCodeAt(i + 1) !== U) {
      // \" \\ \n ...: two characters, so an escaped backslash is never read as the start of \u.
      i = text.indexOf("\\", i + 2);
      continue;
    }
    const code = hex4(text, i + 2);
    let length = 6;
    let bad = false;
    if (code === 0 || (code >= 0xdc00 && code <= 0xdfff)) bad = true;
    else if (code >= 0xd800 && code <= 0xdbff) {
      // A high surrogate is whole only when the very next escape is a low one.
      const low = text.charCodeAt(i + 6) === BACKSLASH && text.charCodeAt(i + 7) === U ? hex4(text, i + 8) : -1;
      if (low >= 0xdc00 && low <= 0xdfff) length = 12;
      else bad = true;
    }
    if (bad) {
      out = (out ?? "") + text.slice(last, i) + REPLACEMENT;
      last = i + 6;
    }
    i = text.indexOf("\\", i + length);
  }
  return out === null ? text : out + text.slice(last);
}
