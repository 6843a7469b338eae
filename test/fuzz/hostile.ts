import fc from "fast-check";

// Hostile values for the fuzzer: what an attacker holding a valid key, or a buggy client, sends.
// Each family is here because it has broken some JSON, SQL or HTTP layer somewhere: strings that
// are not valid UTF-16 (lone surrogates), NUL (which Postgres text and jsonb refuse), values far
// past a column's range, nesting past a recursive parser's stack, and keys that mean something to
// JavaScript objects.

/** Builds a value nested `depth` levels deep without recursion (so the builder itself cannot overflow). */
export function nested(depth: number, kind: "array" | "object", leaf: unknown = 1): unknown {
  let v: unknown = leaf;
  for (let i = 0; i < depth; i++) v = kind === "array" ? [v] : { a: v };
  return v;
}

/** The same as JSON text, built as a string (JSON.stringify recurses and would overflow first). */
export function nestedText(depth: number, kind: "array" | "object"): string {
  return kind === "array" ? `${"[".repeat(depth)}1${"]".repeat(depth)}` : `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
}

const LONG = 100_000;

export const hostileStringConsts: string[] = [
  "",
  " ",
  "\u0000",
  "a\u0000b",
  "\ud800",
  "\udfff",
  "x\ud800y",
  "\udc00\ud800",
  "\ufffe\uffff",
  "\u202e\u200b\ufeff",
  "😀".repeat(3),
  "𝔘𝔫𝔦𝔠𝔬𝔡𝔢",
  "é".normalize("NFD"),
  "'; drop table request_logs; --",
  "%",
  "%00",
  "%ZZ",
  "../../etc/passwd",
  "\\",
  '"',
  "{{output}}",
  "{{messages}}{{tools}}{{tool_choice}}",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a template-injection probe, meant literally
  "${7*7}",
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "hasOwnProperty",
  "null",
  "undefined",
  "NaN",
  "Infinity",
  "-0",
  "1e309",
  "9007199254740993",
  "0x10",
  "true",
  "[]",
  "{}",
  "\r\n\r\n",
  "\t",
  "a".repeat(257),
  "a".repeat(3_000),
  "a".repeat(LONG),
  "\ud800".repeat(1_000),
  "\u0000".repeat(1_000),
  "1970-01-01T00:00:00Z",
  "275760-09-13T00:00:00.001Z",
  "-271821-04-20T00:00:00Z",
  "0000-00-00",
  "2024-02-30T25:61:61Z",
  "crit_x@v99999999999",
  "crit_x@v-1",
  "crit_x@v1.5",
  "@v1",
  "ds_",
  "log_",
  "hone:",
  "hone:/",
  "hone:a/",
  "openai:",
  `anthropic:${"a".repeat(300)}`,
  "ft:gpt-4o-mini:org::abc",
  "http://169.254.169.254/latest/meta-data/",
  "http://[::1]:1/",
  "file:///etc/passwd",
  "javascript:alert(1)",
];

export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...hostileStringConsts) },
  { weight: 3, arbitrary: fc.string({ unit: "binary", maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: "grapheme", maxLength: 20 }) },
  // Arbitrary UTF-16 code units: lone surrogates anywhere.
  { weight: 2, arbitrary: fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)), maxLength: 30 }) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom("a", "\u0000", "\ud83d", "é", "😀"), fc.integer({ min: 1, max: 20_000 })).map(([c, n]) => c.repeat(n)) },
);

export const hostileNumberConsts: number[] = [
  0,
  -0,
  -1,
  1,
  0.5,
  -0.5,
  1e-320,
  255,
  256,
  999,
  1000,
  32767,
  32768,
  2 ** 31 - 1,
  2 ** 31,
  -(2 ** 31),
  -(2 ** 31) - 1,
  2 ** 32,
  1e10,
  -1e10,
  2 ** 53 - 1,
  2 ** 53 + 1,
  -(2 ** 53) - 1,
  2 ** 63,
  1e20,
  8.64e15,
  8.64e15 + 1,
  1e300,
  1e308,
  -1e308,
  Number.MAX_VALUE,
  Number.MIN_VALUE,
];

export const hostileNumber: fc.Arbitrary<number> = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom(...hostileNumberConsts) },
  { weight: 2, arbitrary: fc.integer() },
  { weight: 2, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) },
  { weight: 1, arbitrary: fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map((b) => Number(b)) },
);

/**
 * Number literals JSON.stringify cannot write (it prints null for them): spliced into a body's
 * text by `jsonWithRawNumbers`.
 */
export const RAW_NUMBER_LITERALS = ["1e400", "-1e400", "123456789012345678901234567890", "1E-400", "0.0000000000000000000000000000001", "-0.0"];

const hostileKey: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom("__proto__", "constructor", "prototype", "", "\u0000", "\ud800", "a".repeat(300), "toString", "$where", "__defineGetter__"),
  },
  { weight: 3, arbitrary: fc.string({ maxLength: 12 }) },
  { weight: 1, arbitrary: hostileString },
);

/** Any JSON-ish value with hostile leaves, bounded in size. */
export const hostileJson: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    { weight: 4, arbitrary: hostileString },
    { weight: 3, arbitrary: hostileNumber },
    { weight: 1, arbitrary: fc.constantFrom(null, true, false) },
    { weight: 2, arbitrary: fc.array(fc.oneof(tie("value"), fc.constant(null)), { maxLength: 5 }) },
    { weight: 2, arbitrary: fc.dictionary(hostileKey, tie("value"), { maxKeys: 5 }) },
  ),
})).value;

/** Values that are huge in one dimension: nesting, width, length. Rarely drawn (they are slow). */
export const monsterJson: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(100, 1_000, 5_000, 20_000).chain((d) => fc.constantFrom(nested(d, "array"), nested(d, "object"))),
  fc.constant(Array.from({ length: 10_000 }, () => null)),
  fc.constant(Object.fromEntries(Array.from({ length: 5_000 }, (_, i) => [`k${i}`, i]))),
  fc.constant("x".repeat(1_000_000)),
  fc.constant(Array.from({ length: 2_000 }, () => ({ role: "user", content: "hi" }))),
);

/** A value of the wrong JSON type for whatever was expected. */
export const wrongType: fc.Arbitrary<unknown> = fc.constantFrom<unknown>(
  null,
  true,
  0,
  -1,
  1e308,
  "",
  "x",
  [],
  [null],
  {},
  { __proto__: null },
  JSON.parse('{"__proto__": {"polluted": true}}'),
  [[[]]],
  { "": "" },
);

/** Anything hostile, weighted towards the cheap families. */
export const anyHostile: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 10, arbitrary: hostileJson },
  { weight: 4, arbitrary: wrongType },
  { weight: 1, arbitrary: monsterJson },
);

/** Bodies that are not the JSON a route expects at all. */
export const junkBodyText: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    "",
    "{",
    "}",
    "[",
    "null",
    "0",
    '"str"',
    "{'single': 'quotes'}",
    '{"a":1,}',
    '{"a":1}{"b":2}',
    '{"a": NaN}',
    '{"a": Infinity}',
    '{"a": undefined}',
    "\u0000",
    "\ufeff{}",
    '{"a":"\\ud800"}',
    '{"a":"\\u0000"}',
    '{"a":"\\uZZZZ"}',
    '{"a":1e999}',
    '{"__proto__":{"isAdmin":true}}',
    '{"constructor":{"prototype":{"x":1}}}',
    "a=1&b=2",
    "<xml/>",
    '--boundary\r\nContent-Disposition: form-data; name="file"\r\n\r\nx\r\n--boundary--',
    "[".repeat(100_000),
    '{"a":'.repeat(50_000),
  ),
  fc.string({ unit: "binary", maxLength: 200 }),
  fc.constantFrom(1_000, 10_000, 100_000).chain((d) => fc.constantFrom(nestedText(d, "array"), nestedText(d, "object"))),
);

export const hostileContentType: fc.Arbitrary<string> = fc.constantFrom(
  "application/json",
  "application/json; charset=utf-8",
  "application/json; charset=latin1",
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=boundary",
  "multipart/form-data",
  "application/x-ndjson",
  "application/graphql",
  "application/octet-stream",
  "",
  "application/json; boundary=x; charset=\u00ff",
  "*/*",
);

/** Header values must be latin-1 without CR/LF/NUL to be sent at all: hostile within that. */
export const hostileHeaderValue: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    "",
    " ",
    "null",
    "[]",
    "{}",
    "[null]",
    '["crit_x@v99999999999"]',
    '["crit_x@v1","crit_x@v1","crit_x@v1","crit_x@v1","crit_x@v1","crit_x@v1","crit_x@v1","crit_x@v1","crit_x@v1","crit_x@v1","crit_x@v1","crit_x@v1"]',
    JSON.stringify(Array.from({ length: 5_000 }, (_, i) => `crit_${i}`)),
    '{"__proto__":{"x":"y"}}',
    '{"a":{"b":{"c":1}}}',
    JSON.stringify(Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`k${i}`, "v".repeat(100)]))),
    "[".repeat(5_000),
    nestedText(2_000, "array"),
    '{"k":"\\ud800"}',
    '{"k":"\\u0000"}',
    "1e309",
    "true",
    "TRUE",
    "readWrite",
    "readwrite",
    "\u00ff\u00fe",
    "a".repeat(8_000),
  ),
  fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 60 }),
);

/** Encodes a path segment, sometimes leaving it raw (which yields odd but sendable URLs). */
export function pathSegment(s: string, raw: boolean): string {
  if (!raw) return encodeURIComponent(toWellFormed(s));
  // URL parsing percent-encodes what it must; only '/', '?' and '#' would change the route.
  return s.replace(/[/?#]/g, (c) => encodeURIComponent(c));
}

/** encodeURIComponent throws on lone surrogates; replace them first. */
export function toWellFormed(s: string): string {
  return s.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, "\ufffd");
}

/** A short, printable excerpt of any value (for reports; bodies can be megabytes). */
export function excerpt(v: unknown, max = 300): string {
  let s: string;
  try {
    s = typeof v === "string" ? v : (JSON.stringify(v) ?? String(v));
  } catch {
    s = String(v);
  }
  // biome-ignore lint/suspicious/noControlCharactersInRegex: escaping control characters is the point
  s = s.replace(/[\u0000-\u001f\ud800-\udfff\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
  return s.length > max ? `${s.slice(0, max)}…(${s.length} chars)` : s;
}
