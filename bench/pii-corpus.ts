// A labelled corpus for the masking recognizers (src/lib/masking): realistic values of each kind,
// planted in ordinary prose and in JSON, and look-alikes that must not match (order numbers,
// version strings, UUIDs, timestamps, hashes, prices, ISBNs). Seeded, so every run builds the same
// corpus. Used by bench/pii.ts (precision and recall per kind) and test/domain/masking.test.ts.

export type Planted = { kind: string; value: string };
export type Sample = { text: string; planted: Planted[] };

/** A small seeded generator (mulberry32). */
export function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1));
  const pick = <T>(xs: readonly T[]): T => xs[int(0, xs.length - 1)]!;
  const chars = (alphabet: string, n: number) => Array.from({ length: n }, () => alphabet[int(0, alphabet.length - 1)]).join("");
  return { next, int, pick, chars };
}
type Rng = ReturnType<typeof rng>;

const LOWER = "abcdefghijklmnopqrstuvwxyz";
const UPPER = LOWER.toUpperCase();
const DIGITS = "0123456789";
const ALNUM = LOWER + UPPER + DIGITS;
const FIRST = ["jane", "john", "maria", "li", "ahmed", "sofia", "olga", "pierre", "kwame", "yuki", "ana", "tom"];
const LAST = ["doe", "smith", "garcia", "wang", "khan", "rossi", "ivanova", "dupont", "mensah", "tanaka", "silva", "berg"];
const DOMAINS = ["example.com", "mail.example.org", "corp.example.net", "uni.example.edu", "example.co.uk", "shop.example.de"];

function luhnDigit(partial: string): string {
  // The check digit that makes partial + d pass Luhn.
  for (let d = 0; d <= 9; d++) {
    const s = partial + d;
    let sum = 0;
    for (let i = 0; i < s.length; i++) {
      let x = s.charCodeAt(s.length - 1 - i) - 48;
      if (i % 2 === 1) {
        x *= 2;
        if (x > 9) x -= 9;
      }
      sum += x;
    }
    if (sum % 10 === 0) return String(d);
  }
  return "0";
}

function ibanOf(r: Rng): string {
  const country = r.pick(["DE", "GB", "FR", "NL", "ES", "IT"] as const);
  const len = { DE: 18, GB: 18, FR: 23, NL: 14, ES: 20, IT: 23 }[country];
  const bban =
    country === "GB" || country === "NL"
      ? r.chars(UPPER, 4) + r.chars(DIGITS, len - 4)
      : country === "IT"
        ? r.chars(UPPER, 1) + r.chars(DIGITS, len - 1)
        : r.chars(DIGITS, len);
  const moved = `${bban}${country}00`;
  let rest = 0;
  for (const ch of moved) {
    const v = ch >= "A" ? ch.charCodeAt(0) - 55 : ch.charCodeAt(0) - 48;
    rest = (v > 9 ? rest * 100 + v : rest * 10 + v) % 97;
  }
  const check = String(98 - rest).padStart(2, "0");
  const iban = `${country}${check}${bban}`;
  return r.next() < 0.5 ? iban : iban.replace(/(.{4})/g, "$1 ").trim();
}

const b64u = (s: string) => Buffer.from(s).toString("base64url");

/** A generator per kind: a realistic value. */
export const GENERATORS: Record<string, (r: Rng) => string> = {
  EMAIL: (r) => `${r.pick(FIRST)}${r.pick([".", "_", "", "+"])}${r.pick(LAST)}${r.next() < 0.3 ? r.int(1, 99) : ""}@${r.pick(DOMAINS)}`,
  PHONE: (r) =>
    r.pick([
      () => `+1 ${r.pick(["415", "212", "312", "617", "206"])}-${r.int(200, 899)}-${String(r.int(0, 9999)).padStart(4, "0")}`,
      () => `(${r.pick(["415", "646", "503"])}) ${r.int(200, 899)}-${String(r.int(1000, 9999))}`,
      () => `+44 20 7${r.int(100, 999)} ${String(r.int(1000, 9999))}`,
      () => `+49 30 ${r.int(1000000, 9999999)}`,
      () => `+33 6 ${r.int(10, 99)} ${r.int(10, 99)} ${r.int(10, 99)} ${r.int(10, 99)}`,
    ])(),
  CARD: (r) => {
    const prefix = r.pick(["4", "51", "55", "37", "6011", "35"]);
    const len = prefix === "37" ? 15 : 16;
    const body = prefix + r.chars(DIGITS, len - prefix.length - 1);
    const num = body + luhnDigit(body);
    return r.next() < 0.5 ? num : num.replace(/(\d{4})(?=\d)/g, r.pick(["$1 ", "$1-"]));
  },
  IBAN: ibanOf,
  SSN: (r) => `${r.int(1, 665)}`.padStart(3, "0") + `-${String(r.int(1, 99)).padStart(2, "0")}-${String(r.int(1, 9999)).padStart(4, "0")}`,
  IP_ADDRESS: (r) =>
    r.next() < 0.7
      ? `${r.int(11, 223)}.${r.int(0, 255)}.${r.int(0, 255)}.${r.int(1, 254)}`
      : `2001:db8:${r.chars("0123456789abcdef", 4)}:${r.chars("0123456789abcdef", 3)}::${r.chars("0123456789abcdef", 2)}`,
  URL_CREDENTIALS: (r) => `${r.pick(FIRST)}:${r.chars(ALNUM, r.int(8, 16))}`,
  OPENAI_KEY: (r) => `sk-${r.pick(["proj-", "", "svcacct-"])}${r.chars(ALNUM, 40)}${r.int(10, 99)}`,
  ANTHROPIC_KEY: (r) => `sk-ant-api03-${r.chars(`${ALNUM}_-`, 93)}AA`,
  AWS_KEY: (r) => `AKIA${r.chars(UPPER + DIGITS, 16)}`,
  GITHUB_TOKEN: (r) => (r.next() < 0.7 ? `ghp_${r.chars(ALNUM, 36)}` : `github_pat_${r.chars(ALNUM, 22)}_${r.chars(ALNUM, 59)}`),
  SLACK_TOKEN: (r) => `xoxb-${r.int(100000000, 999999999)}-${r.int(100000000, 999999999)}-${r.chars(ALNUM, 24)}`,
  STRIPE_KEY: (r) => `${r.pick(["sk", "rk"])}_${r.pick(["live", "test"])}_${r.chars(ALNUM, 24)}`,
  GOOGLE_API_KEY: (r) => `AIza${r.chars(`${ALNUM}_-`, 35)}`,
  JWT: (r) =>
    `${b64u(JSON.stringify({ alg: "HS256", typ: "JWT" }))}.${b64u(JSON.stringify({ sub: r.chars(DIGITS, 10), name: r.pick(FIRST), iat: r.int(1e9, 2e9) }))}.${r.chars(`${ALNUM}_-`, 43)}`,
  PRIVATE_KEY: (r) => `-----BEGIN PRIVATE KEY-----\n${Array.from({ length: 4 }, () => r.chars(`${ALNUM}+/`, 64)).join("\n")}\n-----END PRIVATE KEY-----`,
  TOKEN: (r) => {
    // A random token with letters of both cases and digits (a session secret, an unknown vendor's key).
    for (;;) {
      const t = r.chars(ALNUM, r.int(36, 48));
      if (/[a-z]/.test(t) && /[A-Z]/.test(t) && (t.match(/\d/g)?.length ?? 0) >= 3) return t;
    }
  },
};

/** Look-alikes: text that must not be masked. */
export const LOOK_ALIKES: ((r: Rng) => string)[] = [
  (r) => `order #${r.int(10000000, 99999999)}`,
  (r) => `order ${r.int(1000, 9999)}-${r.int(1000, 9999)}-${r.int(1000, 9999)}`,
  (r) => `version ${r.int(0, 20)}.${r.int(0, 40)}.${r.int(0, 99)}`,
  (r) => `v${r.int(1, 9)}.${r.int(0, 9)}.${r.int(0, 9)}.${r.int(0, 9)}`,
  (r) => crypto.randomUUID.call(crypto).replace(/./g, (c) => (c === "-" ? "-" : "0123456789abcdef"[r.int(0, 15)]!)),
  (r) =>
    `2026-${String(r.int(1, 12)).padStart(2, "0")}-${String(r.int(1, 28)).padStart(2, "0")}T${String(r.int(0, 23)).padStart(2, "0")}:${String(r.int(0, 59)).padStart(2, "0")}:00Z`,
  (r) =>
    `2026-${String(r.int(1, 12)).padStart(2, "0")}-${String(r.int(1, 28)).padStart(2, "0")} ${String(r.int(0, 23)).padStart(2, "0")}:${String(r.int(0, 59)).padStart(2, "0")}`,
  (r) => `commit ${r.chars("0123456789abcdef", 40)}`,
  (r) => `sha256 ${r.chars("0123456789abcdef", 64)}`,
  (r) => `$${r.int(1, 9999)}.${String(r.int(0, 99)).padStart(2, "0")}`,
  (r) => `ISBN 978-${r.int(0, 9)}-${r.int(100, 999)}-${r.int(10000, 99999)}-${r.int(0, 9)}`,
  (r) => `at ${r.int(10, 99)}.${r.int(1000, 9999)}° N`,
  (r) => `tracking ${r.chars(UPPER, 2)}${r.chars(DIGITS, 9)}${r.chars(UPPER, 2)}`,
  (r) => `getUserAccountSettingsById${r.int(1, 9)}`,
  (r) => `the ${r.pick(["quick", "lazy", "brave"])} fox@home is a handle, not an address`,
  (r) => `room ${r.int(100, 999)}, floor ${r.int(1, 40)}`,
  (r) => `${r.int(1, 12)}/${r.int(1, 28)}/2026`,
  (r) => `ticket PROJ-${r.int(100, 99999)}`,
  (r) => `http://localhost:${r.int(1000, 9999)}/api/v1`,
  (r) => `npm i react@18.${r.int(0, 3)}.${r.int(0, 9)}`,
];

const PROSE = [
  "Thanks for getting back to me about the delivery.",
  "Could you check the status of my account please?",
  "The report is attached; let me know if anything is missing.",
  "We shipped the replacement yesterday afternoon.",
  "I tried again this morning and it still fails.",
  "Please update the record with the details below.",
];

/** `n` samples: prose or JSON holding 0-3 planted values and 1-3 look-alikes each. */
export function buildCorpus(n: number, seed = 42): Sample[] {
  const r = rng(seed);
  const kinds = Object.keys(GENERATORS);
  const out: Sample[] = [];
  for (let i = 0; i < n; i++) {
    const planted: Planted[] = [];
    const parts: string[] = [r.pick(PROSE)];
    for (let k = r.int(0, 3); k > 0; k--) {
      const kind = kinds[(i + k) % kinds.length]!;
      const value = GENERATORS[kind]!(r);
      planted.push({ kind, value });
      parts.push(
        kind === "URL_CREDENTIALS"
          ? `The database is postgres://${value}@db-${r.int(1, 9)}.internal.example.com:5432/app.`
          : r.pick([`My ${kind.toLowerCase().replace(/_/g, " ")} is ${value}.`, `Use ${value} for this.`, `(${value})`, `${value}`]),
      );
    }
    for (let k = r.int(1, 3); k > 0; k--) parts.push(`${r.pick(LOOK_ALIKES)(r)}.`);
    parts.push(r.pick(PROSE));
    const text = parts.join(" ");
    out.push({ text: r.next() < 0.3 ? JSON.stringify({ messages: [{ role: "user", content: text }] }) : text, planted });
  }
  return out;
}
