import { isIPv6 } from "node:net";
import { parsePhoneNumberFromString } from "libphonenumber-js/max";

// The built-in recognizers: each finds one kind of sensitive value in a text by a pattern, then
// checks what the pattern found by the format's own rule where it has one (Luhn for cards, the
// mod-97 checksum for IBANs, the numbering plan for phone numbers, a decodable header for JWTs).
// Patterns are linear (no nested quantifiers); every candidate is bounded in length.

/** A value found: where it is in the text, and its kind (the placeholder's name: <EMAIL_1>). */
export type Span = { kind: string; start: number; end: number };

export type Recognizer = {
  kind: string;
  /** What it finds, in words (the docs and the settings page show it). */
  description: string;
  find(text: string): Span[];
};

/** Spans of a global regex's matches (or of one group of each), kept when `valid` says so. */
function byPattern(
  kind: string,
  re: RegExp,
  valid: (m: string) => boolean = () => true,
  group = 0,
  quick?: (text: string) => boolean,
): (text: string) => Span[] {
  return (text) => {
    // A cheap test first: most texts hold nothing of most kinds.
    if (quick && !quick(text)) return [];
    const out: Span[] = [];
    re.lastIndex = 0;
    for (let m = re.exec(text); m !== null; m = re.exec(text)) {
      const value = m[group];
      if (value === undefined) continue;
      const start = m.index + (group ? m[0].indexOf(value) : 0);
      if (valid(value)) out.push({ kind, start, end: start + value.length });
    }
    return out;
  };
}

const digitsOf = (s: string) => s.replace(/\D/g, "");

/** The Luhn checksum of a card number's digits. */
export function luhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

// Issuers' prefixes (Visa, Mastercard, Amex, Discover, JCB, Diners, UnionPay, Maestro): a Luhn-valid
// run of digits that no network issues is more likely an order or account number of some other kind.
const CARD_PREFIX = /^(?:4|5[1-5]|2[2-7]|3[47]|6(?:011|5|4[4-9]|2)|35|3[0689]|5[06-9]|6[0-9])/;

function validCard(raw: string): boolean {
  const d = digitsOf(raw);
  if (d.length < 13 || d.length > 19 || !CARD_PREFIX.test(d)) return false;
  // Separators, where there are any, are all one kind.
  const seps = raw.replace(/\d/g, "");
  if (seps && !/^( +|-+)$/.test(seps)) return false;
  return luhn(d);
}

/** An IBAN's mod-97 check (ISO 13616): its country code and check digits moved to the end. */
export function validIban(raw: string): boolean {
  const s = raw.replace(/ /g, "").toUpperCase();
  if (s.length < 15 || s.length > 34 || !/^[A-Z]{2}\d{2}[A-Z0-9]+$/.test(s)) return false;
  const moved = s.slice(4) + s.slice(0, 4);
  let rest = 0;
  for (const ch of moved) {
    const v = ch >= "A" ? ch.charCodeAt(0) - 55 : ch.charCodeAt(0) - 48;
    rest = (v > 9 ? rest * 100 + v : rest * 10 + v) % 97;
  }
  return rest === 1;
}

/** IBAN lengths of the countries that use it most (ISO 13616 registry); others: 15 to 34. */
const IBAN_LENGTHS: Record<string, number> = {
  AT: 20,
  BE: 16,
  BG: 22,
  CH: 21,
  CY: 28,
  CZ: 24,
  DE: 22,
  DK: 18,
  EE: 20,
  ES: 24,
  FI: 18,
  FR: 27,
  GB: 22,
  GR: 27,
  HR: 21,
  HU: 28,
  IE: 22,
  IS: 26,
  IT: 27,
  LT: 20,
  LU: 20,
  LV: 21,
  MT: 31,
  NL: 18,
  NO: 15,
  PL: 28,
  PT: 25,
  RO: 24,
  SE: 24,
  SI: 19,
  SK: 24,
  TR: 26,
};

/** The IBAN a candidate begins with: whole groups at a time, its country's length where known, else the shortest that passes the checksum. */
function ibanIn(candidate: string): string | null {
  const groups = candidate.split(" ");
  const want = IBAN_LENGTHS[candidate.slice(0, 2)];
  let value = "";
  for (const g of groups) {
    value = value ? `${value} ${g}` : g;
    const bare = value.replace(/ /g, "").length;
    if (want ? bare === want && validIban(value) : bare >= 15 && validIban(value)) return value;
    if (bare > (want ?? 34)) return null;
  }
  return null;
}

function validJwt(raw: string): boolean {
  try {
    const header = JSON.parse(Buffer.from(raw.slice(0, raw.indexOf(".")), "base64url").toString("utf8"));
    return typeof header === "object" && header !== null && typeof header.alg === "string";
  } catch {
    return false;
  }
}

/** Shannon entropy in bits per character. */
export function entropy(s: string): number {
  const counts = new Map<string, number>();
  for (const ch of s) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let h = 0;
  for (const n of counts.values()) {
    const p = n / s.length;
    h -= p * Math.log2(p);
  }
  return h;
}

/** An unknown token that looks random: long, of letters in both cases and digits, high entropy. */
function randomToken(s: string): boolean {
  if (s.length < 32 || s.length > 256) return false;
  if (!/[a-z]/.test(s) || !/[A-Z]/.test(s) || (s.match(/\d/g)?.length ?? 0) < 3) return false;
  return entropy(s) >= 4.2;
}

/** The region a phone number without a country code is read in (HONE_MASKING_PHONE_REGION). */
export type PhoneRegion = Parameters<typeof parsePhoneNumberFromString>[1];

// Candidates, each checked further where it is used.
const ibanCandidates = byPattern(
  "IBAN",
  /(?<![A-Za-z0-9])[A-Z]{2}\d{2}(?: ?[A-Z0-9]{1,4}){3,8}(?![A-Za-z0-9])/g,
  () => true,
  0,
  (t) => /[A-Z]{2}\d{2}/.test(t),
);
const ipv4 = byPattern(
  "IP_ADDRESS",
  /(?<![\w.])(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?![\w]|\.\d)/g,
  () => true,
  0,
  (t) => /\d\.\d/.test(t),
);
const ipv6 = byPattern(
  "IP_ADDRESS",
  /(?<![\w:])(?:[0-9A-Fa-f]{1,4}|(?=::))(?::[0-9A-Fa-f]{0,4}){2,7}(?![\w:])/g,
  (m) => m.split(":").filter(Boolean).length >= 3 && isIPv6(m),
  0,
  (t) => t.includes(":"),
);
// A phone number's candidate: an optional +, then 7 to 15 digits with the usual separators; the numbering plan decides.
const phoneCandidates = byPattern(
  "PHONE",
  /(?<![\w+.:$€£/-])(?:\+|00)?\(?\d[\d ().-]{5,22}\d(?![\w:/-])/g,
  () => true,
  0,
  (t) => /\d(?:[ ().-]?\d){6}/.test(t),
);

function phoneRecognizer(region: PhoneRegion): Recognizer {
  return {
    kind: "PHONE",
    description: "phone numbers valid in their country's numbering plan (with a + and country code, or in the configured region)",
    find: (text) => {
      // A candidate may run on into a date or another number: it, or its beginning cut at a
      // separator (at most three cuts), that the numbering plan accepts is the number.
      const out: Span[] = [];
      for (const c of phoneCandidates(text)) {
        let value = text.slice(c.start, c.end);
        for (let cuts = 0; cuts <= 3 && value; cuts++) {
          if (validPhone(value)) {
            out.push({ kind: "PHONE", start: c.start, end: c.start + value.length });
            break;
          }
          value = value.replace(/[ ().-]+[^ ().-]*$/, "").replace(/[ ().-]+$/, "");
        }
      }
      return out;
    },
  };
  function validPhone(m: string): boolean {
    const digits = digitsOf(m);
    if (digits.length < 7 || digits.length > 15) return false;
    // A sentence's end, two separators in a row, or a decimal point are not inside a number.
    if (/\.\s|\s\.|[ .-]{2}|^\d+\.\d{1,2}$/.test(m)) return false;
    // Dates and times are not numbers to dial.
    if (/^\d{4}[./-]\d{1,2}[./-]\d{1,2}(?!\d)|^\d{1,2}[./-]\d{1,2}[./-]\d{4}$/.test(m.trim())) return false;
    const n = parsePhoneNumberFromString(m.startsWith("00") ? `+${m.slice(2)}` : m, region);
    return n?.isValid() === true;
  }
}

const has =
  (...parts: string[]) =>
  (text: string) =>
    parts.some((p) => text.includes(p));

const SECRET_PATTERNS: { kind: string; description: string; re: RegExp; valid?: (m: string) => boolean; quick: (text: string) => boolean }[] = [
  {
    kind: "PRIVATE_KEY",
    description: "PEM private keys (RSA, EC, OpenSSH, PKCS#8), the whole block",
    quick: has("PRIVATE KEY"),
    re: /-----BEGIN (?:[A-Z0-9]+ ){0,3}PRIVATE KEY-----[A-Za-z0-9+/=\s:,.-]{16,16384}?-----END (?:[A-Z0-9]+ ){0,3}PRIVATE KEY-----/g,
  },
  { kind: "ANTHROPIC_KEY", description: "Anthropic API keys (sk-ant-…)", quick: has("sk-ant-"), re: /(?<![\w-])sk-ant-[A-Za-z0-9_-]{20,300}/g },
  {
    kind: "OPENAI_KEY",
    description: "OpenAI API keys (sk-…, sk-proj-…, sk-svcacct-…)",
    quick: has("sk-"),
    re: /(?<![\w-])sk-(?!ant-)(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,300}/g,
    valid: (m) => /\d/.test(m) && /[A-Za-z]/.test(m.slice(3)),
  },
  {
    kind: "AWS_KEY",
    description: "AWS access key ids (AKIA…, ASIA…)",
    quick: has("AKIA", "ASIA", "ABIA", "ACCA"),
    re: /(?<![A-Z0-9])(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Z0-9])/g,
  },
  {
    kind: "GITHUB_TOKEN",
    description: "GitHub tokens (ghp_, gho_, ghu_, ghs_, ghr_, github_pat_)",
    quick: has("gh", "github_pat_"),
    re: /(?<![\w])(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})/g,
  },
  {
    kind: "SLACK_TOKEN",
    description: "Slack tokens (xoxb-, xoxp-, …) and webhook URLs",
    quick: has("xox", "hooks.slack.com"),
    re: /(?<![\w-])xox[abposre]-[A-Za-z0-9-]{10,250}|https:\/\/hooks\.slack\.com\/services\/[A-Za-z0-9/]{20,120}/g,
  },
  {
    kind: "STRIPE_KEY",
    description: "Stripe secret and restricted keys (sk_live_, rk_test_, …)",
    quick: has("_live_", "_test_"),
    re: /(?<![\w])(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,250}/g,
  },
  { kind: "GOOGLE_API_KEY", description: "Google API keys (AIza…)", quick: has("AIza"), re: /(?<![\w-])AIza[0-9A-Za-z_-]{35}(?![\w-])/g },
  {
    kind: "JWT",
    description: "JSON Web Tokens (a decodable header naming its algorithm)",
    quick: has("eyJ"),
    re: /(?<![\w-])eyJ[A-Za-z0-9_-]{8,2000}\.eyJ[A-Za-z0-9_-]{8,8000}\.[A-Za-z0-9_-]{0,2000}/g,
    valid: validJwt,
  },
];

/** Every built-in recognizer, most specific first (where two overlap, the one listed first wins). */
export function builtInRecognizers(opts: { phoneRegion?: PhoneRegion } = {}): Recognizer[] {
  return [
    ...SECRET_PATTERNS.map((p) => ({ kind: p.kind, description: p.description, find: byPattern(p.kind, p.re, p.valid, 0, p.quick) })),
    {
      kind: "URL_CREDENTIALS",
      description: "the user and password in a URL (scheme://user:password@host): only them",
      find: byPattern(
        "URL_CREDENTIALS",
        /\b[a-z][a-z0-9+.-]{1,20}:\/\/([^\s/:@"'<>]{1,200}:[^\s/@"'<>]{1,200})@[^\s/"'<>]{1,255}/gi,
        () => true,
        1,
        has("://"),
      ),
    },
    {
      kind: "EMAIL",
      description: "e-mail addresses",
      find: byPattern(
        "EMAIL",
        /(?<![\w.%+-])[A-Za-z0-9](?:[A-Za-z0-9._%+-]{0,62}[A-Za-z0-9_%+-])?@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.){1,8}[A-Za-z]{2,24}(?![\w-])/g,
        () => true,
        0,
        has("@"),
      ),
    },
    {
      kind: "IBAN",
      description: "IBANs (mod-97 checksum), plain or in groups of four",
      find: (text) => {
        // A candidate may run on into the groups of what follows it (a card number): its longest
        // beginning, whole groups at a time, that passes the checksum is the IBAN.
        const out: Span[] = [];
        for (const s of ibanCandidates(text)) {
          const value = ibanIn(text.slice(s.start, s.end));
          if (value) out.push({ kind: "IBAN", start: s.start, end: s.start + value.length });
        }
        return out;
      },
    },
    {
      kind: "CARD",
      description: "payment card numbers (13 to 19 digits of a known issuer, Luhn-valid, plain or grouped by spaces or dashes)",
      find: byPattern("CARD", /(?<![\w-])\d(?:[ -]?\d){12,18}(?![\w-])/g, validCard, 0, (t) => /\d{4}/.test(t)),
    },
    {
      kind: "SSN",
      description: "US social security numbers written 123-45-6789 (not 000, 666 or 9xx areas)",
      find: byPattern("SSN", /(?<![\d-])(?!000|666|9\d\d)\d{3}-(?!00)\d{2}-(?!0000)\d{4}(?![\d-])/g, () => true, 0, has("-")),
    },
    {
      kind: "IP_ADDRESS",
      description: "IPv4 addresses (not version strings: no v before, no fifth part) and IPv6 addresses of three or more groups",
      find: (text) => [...ipv4(text), ...ipv6(text)],
    },
    phoneRecognizer(opts.phoneRegion ?? "US"),
    {
      kind: "TOKEN",
      description: "unknown secrets: 32 to 256 characters of letters in both cases and digits with high entropy (4.2 bits a character or more)",
      find: byPattern("TOKEN", /(?<![A-Za-z0-9_+/=-])[A-Za-z0-9_+/-]{32,}={0,2}(?![A-Za-z0-9_+/=-])/g, randomToken),
    },
  ];
}

/** The longest value a project's own recognizer masks (a longer match is left: a pattern gone wide). */
const MAX_CUSTOM_MATCH = 256;

/** A project's own recognizer: its kind and a regular expression already shown safe (domain/masking). */
export function patternRecognizer(kind: string, pattern: string): Recognizer {
  return {
    kind,
    description: `the project's own pattern /${pattern}/`,
    find: byPattern(kind, new RegExp(pattern, "g"), (m) => m.length > 0 && m.length <= MAX_CUSTOM_MATCH),
  };
}

/** The kinds the built-in recognizers find. */
export const BUILT_IN_KINDS = builtInRecognizers().map((r) => r.kind);
