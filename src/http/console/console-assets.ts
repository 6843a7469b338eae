import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ASSETS_PATH, bundleOptions } from "./bundle-options";
import type { Logger } from "../../core/logger";
import { pageSecurityHeaders } from "../page-security";

/** Where the bundled console's files are served from. */
export { ASSETS_PATH };

type Asset = { body: Uint8Array<ArrayBuffer>; gzip: Uint8Array<ArrayBuffer>; type: string };

/**
 * The console's pages (src/console/router.tsx): per section, the page components a path shows at
 * each depth (`/logs`: the list; `/logs/<logId>`: the list and its drawer), by the name their lazy
 * chunk exports. A reload or a shared link of any of them gets the console, with its page's chunks
 * preloaded alongside the shell; any other path is not a page (a browser gets the not-found page,
 * see app.ts).
 */
const PAGES: Record<string, string[][]> = {
  logs: [["LogsPage"], ["LogsPage", "LogDetail"]],
  traces: [["TracesPage"], ["TracePage"]],
  usage: [["UsagePage"]],
  limits: [["LimitsPage"]],
  monitors: [["MonitorsPage"]],
  relabel: [[], ["RelabelRunPage"]],
  settings: [["SettingsPage"]],
  datasets: [["DatasetsPage"], ["DatasetPage"]],
  models: [["ModelsPage"], ["ModelPage"]],
  routes: [["RoutesPage"], ["RoutePage"]],
  criteria: [["CriteriaPage"], ["CriterionPage"]],
  evaluations: [["EvaluationsPage"], ["EvaluationPage"]],
  playground: [["PlaygroundPage"]],
  members: [["MembersPage"]],
  account: [["AccountPage"]],
  audit: [["AuditPage"]],
  // The invitation page is part of the shell (it is shown signed out too).
  invite: [[]],
};
/** "/" sends the browser on to the logs. */
const HOME = "logs";

export type ConsoleBundle = {
  /** The page for a console path: the shell, with the modules of that path's page preloaded. */
  htmlFor(path: string): string;
  assets: Map<string, Asset>;
  /** Gzipped bytes a first page load fetches: the entry script, the chunks it imports statically, the style sheet. */
  initialGzipBytes: number;
  totalGzipBytes: number;
  buildMs: number;
};

function pageHtml(script: string, styles: string[], preload: string[]): string {
  // The shell's script first (it is asked for first), then the page's modules.
  const links = styles.map((href) => `<link rel="stylesheet" href="${href}">`).join("");
  const preloads = preload.map((href) => `<link rel="modulepreload" href="${href}">`).join("");
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Hone</title><link rel="icon" href="data:,"><meta name="color-scheme" content="light dark">${links}<script type="module" src="${script}"></script>${preloads}</head>
<body><div id="root"></div><noscript>The Hone console needs JavaScript. The API works without it: see /api/v1/docs.</noscript></body></html>`;
}

/** Chunks the entry imports statically (`import ... from "./chunk-x.js"`, not `import("...")`). */
function staticImportsOf(code: string): string[] {
  const out: string[] = [];
  for (const m of code.matchAll(/(?:^|[;}\s])import\s*(?:[\w${},*\s]+from\s*)?["']([^"']+)["']/g)) out.push(m[1]!);
  for (const m of code.matchAll(/(?:^|[;}\s])export\s*(?:[\w${},*\s]+)from\s*["']([^"']+)["']/g)) out.push(m[1]!);
  return out;
}

/** The names a chunk exports (`export { a as LogsPage, b }`): minifying keeps them. */
function exportsOf(code: string): string[] {
  const out: string[] = [];
  for (const m of code.matchAll(/export\s*\{([^}]*)\}/g)) {
    for (const part of m[1]!.split(",")) {
      const name = part
        .trim()
        .split(/\s+as\s+/)
        .pop();
      if (name) out.push(name);
    }
  }
  return out;
}

/** The files `names` import statically, themselves included, transitively. */
function closureOf(assets: Map<string, Asset>, names: string[]): Set<string> {
  const out = new Set<string>();
  const queue = [...names];
  while (queue.length) {
    const name = queue.pop()!;
    if (out.has(name)) continue;
    out.add(name);
    const asset = assets.get(name);
    if (!asset || !name.endsWith(".js")) continue;
    for (const spec of staticImportsOf(new TextDecoder().decode(asset.body))) {
      const dep = spec.replace(ASSETS_PATH, "").replace(/^\.\//, "");
      if (assets.has(dep)) queue.push(dep);
    }
  }
  return out;
}

type BundledFile = { name: string; kind: string; type: string; body: Uint8Array<ArrayBuffer> };

/**
 * The console's files, bundled by a child process (bundle.child.ts), so the bundler's memory is
 * returned when it exits (about 23 MB of the server's idle RSS otherwise); in this process only if
 * the child cannot be started.
 */
async function bundleFiles(): Promise<BundledFile[]> {
  const dir = mkdtempSync(join(tmpdir(), "hone-console-"));
  try {
    let child: ReturnType<typeof Bun.spawn> | null;
    try {
      child = Bun.spawn([process.execPath, fileURLToPath(new URL("./bundle.child.ts", import.meta.url)), dir], {
        stdin: "ignore",
        stdout: "ignore",
        stderr: "pipe",
      });
    } catch {
      // No child process here (a sandbox without spawn): bundled in this process instead.
      child = null;
    }
    if (!child) return await bundleInProcess();
    const [code, stderr] = await Promise.all([child.exited, new Response(child.stderr as ReadableStream).text()]);
    if (code !== 0) throw new Error(`The console could not be bundled: ${stderr.trim() || `the bundler exited with ${code}`}`);
    const files = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8")) as Omit<BundledFile, "body">[];
    return files.map((f) => ({ ...f, body: new Uint8Array(readFileSync(join(dir, f.name))) }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function bundleInProcess(): Promise<BundledFile[]> {
  const result = await Bun.build(bundleOptions());
  if (!result.success) {
    throw new AggregateError(result.logs, `The console could not be bundled: ${result.logs.map((l) => String(l)).join("; ")}`);
  }
  return Promise.all(
    result.outputs
      .filter((o) => o.kind !== "sourcemap")
      .map(async (o) => ({ name: o.path.replace(/^\.\//, ""), kind: o.kind, type: o.type, body: new Uint8Array(await o.arrayBuffer()) })),
  );
}

/**
 * Bundles the console with Bun's bundler (in a child process): minified, split per page (each section's page
 * is its own chunk, loaded when first opened), hashed names so the files can be cached forever.
 * The HTML of a path preloads that path's page chunks (`<link rel="modulepreload">`) while the
 * shell loads, rather than after it ran. Takes about half a second; `bun run start` does it once
 * at start, so the user runs no build step.
 */
export async function buildConsole(): Promise<ConsoleBundle> {
  const started = performance.now();
  const assets = new Map<string, Asset>();
  let entry = "";
  const styles: string[] = [];
  let totalGzipBytes = 0;
  for (const out of await bundleFiles()) {
    const gzip = Bun.gzipSync(out.body, { level: 9 }) as Uint8Array<ArrayBuffer>;
    totalGzipBytes += gzip.byteLength;
    assets.set(out.name, { body: out.body, gzip, type: out.type });
    if (out.kind === "entry-point") entry = out.name;
    else if (out.name.endsWith(".css")) styles.push(out.name);
  }
  // Which chunk holds each page component (the router imports it by that name).
  const chunkOf = new Map<string, string>();
  for (const [name, asset] of assets) {
    if (name.endsWith(".js") && name !== entry) for (const e of exportsOf(new TextDecoder().decode(asset.body))) chunkOf.set(e, name);
  }
  const shell = closureOf(assets, [entry]);
  // What the first page costs: the entry, what it imports statically (transitively), the styles.
  const initialGzipBytes = [...shell, ...styles].reduce((sum, n) => sum + (assets.get(n)?.gzip.byteLength ?? 0), 0);
  const html = new Map<string, string>();
  for (const [section, depths] of Object.entries(PAGES)) {
    depths.forEach((modules, depth) => {
      const outputs = modules.map((m) => chunkOf.get(m));
      if (outputs.some((o) => !o)) throw new Error(`The console's bundle has no chunk exporting ${modules.join(", ")}`);
      const preload = [...closureOf(assets, outputs as string[])].filter((n) => !shell.has(n));
      html.set(
        `${section}/${depth}`,
        pageHtml(
          ASSETS_PATH + entry,
          styles.map((s) => ASSETS_PATH + s),
          preload.map((n) => ASSETS_PATH + n),
        ),
      );
    });
  }
  const shellOnly = pageHtml(
    ASSETS_PATH + entry,
    styles.map((s) => ASSETS_PATH + s),
    [],
  );
  return {
    htmlFor(path) {
      const where = pageOf(path);
      return (where && html.get(`${where.section || HOME}/${where.depth}`)) ?? shellOnly;
    },
    assets,
    initialGzipBytes,
    totalGzipBytes,
    buildMs: Math.round(performance.now() - started),
  };
}

/** The section and depth of a console page's path ("/": section ""), or null when it is not one. */
function pageOf(path: string): { section: string; depth: number } | null {
  const parts = path.split("/").slice(1);
  if (parts.at(-1) === "") parts.pop();
  if (parts.length === 0) return { section: "", depth: 0 };
  const depths = PAGES[parts[0]!];
  const depth = parts.length - 1;
  return depths && depth < depths.length && parts.every((p) => p !== "") ? { section: parts[0]!, depth } : null;
}

/** Whether `path` is one of the console's pages ("/" included; one trailing slash allowed). */
export function isConsolePage(path: string): boolean {
  return pageOf(path) !== null;
}

// Mantine sets styles at run time (its style props and CSS variables): 'unsafe-inline' styles.
// https: images are shown only after a click on "Load image" (pages/logs/conversation.tsx).
const SECURITY_HEADERS = pageSecurityHeaders(
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob: https:; connect-src 'self'; form-action 'self'",
);

export type ConsoleServer = {
  /** The console's answer to a GET of `path`, or null when the path is not the console's. */
  handle(request: Request, path: string): Promise<Response | null>;
  /** Bundles now (at start) rather than on the first page view. */
  warm(): Promise<ConsoleBundle>;
};

export function createConsoleServer(logger: Logger): ConsoleServer {
  let bundle: Promise<ConsoleBundle> | null = null;
  const load = () => {
    bundle ??= buildConsole().then(
      (b) => {
        logger.info("console bundled", {
          buildMs: b.buildMs,
          initialGzipKb: Math.round(b.initialGzipBytes / 1024),
          totalGzipKb: Math.round(b.totalGzipBytes / 1024),
        });
        return b;
      },
      (err) => {
        bundle = null;
        throw err;
      },
    );
    return bundle;
  };
  return {
    warm: load,
    async handle(request, path) {
      if (request.method !== "GET" && request.method !== "HEAD") return null;
      const isAsset = path.startsWith(ASSETS_PATH);
      if (!isAsset && !isConsolePage(path)) return null;
      let b: ConsoleBundle;
      try {
        b = await load();
      } catch (err) {
        logger.error("console bundle failed", { error: err instanceof Error ? err.message : String(err) });
        return new Response("The console could not be built; see the server log. The API is unaffected.", {
          status: 503,
          headers: { "content-type": "text/plain" },
        });
      }
      if (!isAsset) {
        return new Response(b.htmlFor(path), { headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-cache", ...SECURITY_HEADERS } });
      }
      const asset = b.assets.get(path.slice(ASSETS_PATH.length));
      if (!asset) return new Response("Not found", { status: 404, headers: { "content-type": "text/plain" } });
      const gzip = /\bgzip\b/.test(request.headers.get("accept-encoding") ?? "");
      const headers: Record<string, string> = {
        "content-type": asset.type,
        "cache-control": "public, max-age=31536000, immutable",
        vary: "accept-encoding",
        "x-content-type-options": "nosniff",
      };
      if (gzip) headers["content-encoding"] = "gzip";
      return new Response(gzip ? asset.gzip : asset.body, { headers });
    },
  };
}
