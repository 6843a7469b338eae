// The headers of the HTML pages Hone serves (the console, GraphiQL, the REST docs page): one
// Content-Security-Policy per page, built here with the directives every page shares, so no page
// can be framed, rebased or made to load plugins, whatever its own directives say.
import { createHash } from "node:crypto";

/** Directives every page gets: no framing (clickjacking), no <base> hijack, no plugins. */
const BASELINE = "frame-ancestors 'none'; base-uri 'none'; object-src 'none'";

/**
 * The headers of an HTML page, from its own CSP directives (`default-src`, `script-src`, ...,
 * without the baseline ones, which are appended). X-Frame-Options is for browsers that predate
 * frame-ancestors; same-origin keeps a page's URL from leaking to the sites it links to.
 */
export function pageSecurityHeaders(directives: string): Record<string, string> {
  return {
    "content-security-policy": `${directives}; ${BASELINE}`,
    "x-frame-options": "DENY",
    "x-content-type-options": "nosniff",
    "referrer-policy": "same-origin",
  };
}

const hashSource = (text: string) => `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`;

/**
 * CSP hash sources ('sha256-...') of a page's inline elements of one kind: <script> without a
 * `src`, or <style>. The text hashed is what the browser hashes: everything between the opening
 * tag and the first closing one (HTML input has CR LF folded to LF, so the page's own text must be
 * LF-only, as Hone's pages are).
 */
export function inlineHashes(html: string, tag: "script" | "style"): string[] {
  const out = new Set<string>();
  const re = tag === "script" ? /<script(\s[^>]*)?>([\s\S]*?)<\/script\s*>/gi : /<style(\s[^>]*)?>([\s\S]*?)<\/style\s*>/gi;
  for (const m of html.matchAll(re)) {
    if (tag === "script" && /\ssrc\s*=/i.test(m[1] ?? "")) continue;
    out.add(hashSource(m[2] ?? ""));
  }
  return [...out];
}
