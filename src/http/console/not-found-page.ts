import { inlineHashes, pageSecurityHeaders } from "../page-security";

// The answer to a browser asking for a page that does not exist (/nonsense, /logs/x/y): a small
// HTML page, 404, that says so and links to the console, instead of the API's JSON 404. It stands
// alone (no console script), so it reads the same signed in or out; its colours follow the
// browser's light or dark preference.

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const STYLE = `
:root { color-scheme: light dark; --bg: #f8f9fa; --card: #ffffff; --text: #212529; --dim: #495057; --line: #dee2e6; --link: #1864ab; --code: #f1f3f5; }
@media (prefers-color-scheme: dark) {
  :root { --bg: #1a1b1e; --card: #25262b; --text: #e9ecef; --dim: #c1c2c5; --line: #373a40; --link: #74c0fc; --code: #2c2e33; }
}
* { box-sizing: border-box; }
body { margin: 0; min-height: 100vh; display: flex; align-items: center; justify-content: center; padding: 16px;
  background: var(--bg); color: var(--text); font: 16px/1.55 -apple-system, BlinkMacSystemFont, "Segoe UI", Roboto, Helvetica, Arial, sans-serif; }
main { max-width: 520px; width: 100%; background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 32px; }
h1 { font-size: 1.6rem; margin: 0 0 8px; }
p { margin: 0 0 12px; color: var(--dim); }
code { background: var(--code); color: var(--text); padding: 1px 6px; border-radius: 4px; word-break: break-all; }
a { color: var(--link); font-weight: 600; text-decoration: underline; }
ul { margin: 0; padding-left: 20px; color: var(--dim); }
li { margin: 4px 0; }
`;

const CSP = `default-src 'none'; style-src ${inlineHashes(`<style>${STYLE}</style>`, "style").join(" ")}; img-src data:; form-action 'none'`;
const HEADERS = { "content-type": "text/html; charset=utf-8", "cache-control": "no-cache", ...pageSecurityHeaders(CSP) };

/** A GET or HEAD from something that reads HTML (a browser), not an API client asking for JSON. */
export function wantsHtmlPage(request: Request): boolean {
  return (request.method === "GET" || request.method === "HEAD") && /\btext\/html\b/.test(request.headers.get("accept") ?? "");
}

/** The 404 page for `path`. */
export function notFoundPage(path: string): Response {
  let readable = path;
  try {
    readable = decodeURI(path);
  } catch {
    // Shown as it came.
  }
  const shown = escapeHtml(readable.length > 300 ? `${readable.slice(0, 300)}…` : readable);
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Page not found · Hone</title><link rel="icon" href="data:,"><meta name="color-scheme" content="light dark"><style>${STYLE}</style></head>
<body><main>
<h1>This page does not exist</h1>
<p>Hone has no page at <code>${shown}</code>. The link may be mistyped, or what it pointed to was deleted.</p>
<ul>
<li><a href="/logs">Go to the logs</a></li>
<li><a href="/">Open the console</a></li>
<li><a href="/api/v1/docs">Read the API reference</a></li>
</ul>
</main></body></html>`;
  return new Response(html, { status: 404, headers: HEADERS });
}
