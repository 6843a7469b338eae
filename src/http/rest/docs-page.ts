// A self-contained API reference page (no CDN, no network): it reads ./openapi.json and lists every
// route with its parameters and request/response schemas.
import { inlineHashes, pageSecurityHeaders } from "../page-security";

export const DOCS_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Hone REST API</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body{font:15px/1.5 system-ui,sans-serif;margin:0;color:#1d2330;background:#f7f8fa}
header{background:#1d2330;color:#fff;padding:18px 28px}header h1{margin:0;font-size:20px}
main{max-width:1000px;margin:0 auto;padding:20px}
h2{margin-top:32px;border-bottom:1px solid #dde1e8;padding-bottom:4px}
details{background:#fff;border:1px solid #dde1e8;border-radius:6px;margin:8px 0;padding:0 12px}
summary{cursor:pointer;padding:10px 0;list-style:none}
.m{display:inline-block;width:64px;font-weight:700;font-family:monospace;text-transform:uppercase}
.get{color:#1f7a3a}.post{color:#1b5fb4}.delete{color:#b42318}
code,pre{font-family:ui-monospace,monospace;font-size:13px}
pre{background:#f1f3f6;padding:10px;border-radius:4px;overflow:auto;max-height:420px}
.dep{color:#8a6d00;font-size:12px;margin-left:6px}
</style></head><body>
<header><h1>Hone REST API</h1><div id="info"></div></header>
<main id="root">Loading openapi.json…</main>
<script>
const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({"&":"&amp;","<":"&lt;",">":"&gt;",'"':"&quot;"}[c]));
const pre = (v) => "<pre>" + esc(JSON.stringify(v, null, 2)) + "</pre>";
fetch("./openapi.json").then((r) => r.json()).then((doc) => {
  document.getElementById("info").textContent = doc.info.description + " Base URL: " + doc.servers[0].url;
  const byTag = {};
  for (const [path, ops] of Object.entries(doc.paths))
    for (const [method, op] of Object.entries(ops)) (byTag[op.tags[0]] ??= []).push({ path, method, op });
  let html = "";
  for (const [tag, ops] of Object.entries(byTag)) {
    html += "<h2>" + esc(tag) + "</h2>";
    for (const { path, method, op } of ops) {
      html += '<details><summary><span class="m ' + method + '">' + method + "</span><code>" + esc(path) + "</code> " + esc(op.summary) +
        (op.deprecated ? '<span class="dep">deprecated</span>' : "") + "</summary>";
      if (op.parameters) html += "<h4>Parameters</h4><ul>" + op.parameters.map((p) => "<li><code>" + esc(p.name) + "</code> (" + p.in + ") " + esc(p.description ?? "") + "</li>").join("") + "</ul>";
      if (op.requestBody) for (const [type, c] of Object.entries(op.requestBody.content)) html += "<h4>Request body (" + esc(type) + ")</h4>" + pre(c.schema);
      for (const [code, r] of Object.entries(op.responses)) {
        const c = r.content && Object.entries(r.content)[0];
        html += "<h4>" + code + " " + esc(r.description) + (c ? " (" + esc(c[0]) + ")" : "") + "</h4>" + (c ? pre(c[1].schema) : "");
      }
      html += "</details>";
    }
  }
  html += "<h2>Components</h2>" + pre(doc.components);
  document.getElementById("root").innerHTML = html;
}).catch((e) => { document.getElementById("root").textContent = "Could not load openapi.json: " + e; });
</script></body></html>`;

let docsHeaders: Record<string, string> | undefined;

/**
 * The docs page with its security headers. The page needs its own inline script and style (allowed
 * by hash, computed on the first view) and a fetch of ./openapi.json; nothing else.
 */
export function docsPageResponse(): Response {
  docsHeaders ??= {
    "content-type": "text/html; charset=utf-8",
    ...pageSecurityHeaders(
      `default-src 'none'; script-src ${inlineHashes(DOCS_PAGE, "script").join(" ")}; style-src ${inlineHashes(DOCS_PAGE, "style").join(" ")}; ` +
        "connect-src 'self'; form-action 'none'",
    ),
  };
  return new Response(DOCS_PAGE, { headers: docsHeaders });
}
