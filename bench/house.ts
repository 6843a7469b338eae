// The house in figures: what issue 60 (the third pass over the structure) measures, printed by one
// command so that before and after are counted the same way.
//
//   bun run house            # a table on stdout
//   bun run house --json     # the same figures as JSON
//   bun run house --check    # the rules of docs/architecture.md "Layers and borders"; exits 1 on a
//                            # breach (part of `bun run lint`)
//
// It reads files as text (imports by regular expression: `from "…"`, `import("…")`), resolves
// relative specifiers to files, and counts; it runs nothing of Hone's.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "..");
const SRC = join(ROOT, "src");
const DOMAIN = join(SRC, "domain");

function walk(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (name === "node_modules" || name.startsWith(".")) continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (/\.(ts|tsx)$/.test(name)) out.push(p);
  }
  return out;
}

const lines = (p: string) => readFileSync(p, "utf8").split("\n").length;
const rel = (p: string) => relative(ROOT, p);

/** The file a relative specifier names (`./x` → x.ts, x.tsx or x/index.ts), or null. */
function resolveSpecifier(from: string, spec: string): string | null {
  if (!spec.startsWith(".")) return null;
  const base = resolve(dirname(from), spec);
  for (const c of [base, `${base}.ts`, `${base}.tsx`, join(base, "index.ts"), join(base, "index.tsx")]) {
    if (existsSync(c) && statSync(c).isFile()) return c;
  }
  return null;
}

const IMPORT = /(?:^|\n)\s*((?:import|export)\s[^;]*?)from\s+["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;
/** Whether an import statement brings types only (`import type {…}`, or every name marked `type`): erased when it runs. */
function typeOnly(head: string | undefined): boolean {
  if (!head) return false;
  if (/^(?:import|export)\s+type\s/.test(head.trim())) return true;
  const names = /\{([^}]*)\}/.exec(head)?.[1];
  if (!names || /^\s*(?:import|export)\s+[\w$]+\s*[,{]/.test(head) || head.includes("*")) return false;
  const items = names
    .split(",")
    .map((x) => x.trim())
    .filter(Boolean);
  return items.length > 0 && items.every((x) => x.startsWith("type "));
}
type Import = { target: string; typeOnly: boolean; line: number };
const importCache = new Map<string, Import[]>();
function importsWithKind(file: string): Import[] {
  const hit = importCache.get(file);
  if (hit) return hit;
  const text = readFileSync(file, "utf8");
  const out: Import[] = [];
  for (const m of text.matchAll(IMPORT)) {
    const target = resolveSpecifier(file, m[2] ?? m[3]!);
    if (target) out.push({ target, typeOnly: typeOnly(m[1]), line: text.slice(0, m.index + m[0].length).split("\n").length });
  }
  importCache.set(file, out);
  return out;
}
const importsOf = (file: string): string[] => importsWithKind(file).map((i) => i.target);

/** The domain area a file belongs to (`logs` for src/domain/logs/x.ts), or null outside src/domain/<area>/. */
function areaOf(file: string): string | null {
  const r = relative(DOMAIN, file);
  if (r.startsWith("..")) return null;
  const parts = r.split("/");
  return parts.length > 1 ? parts[0]! : null;
}

const srcFiles = walk(SRC);
const domainFiles = srcFiles.filter((f) => areaOf(f) !== null);
const areas = new Set(domainFiles.map((f) => areaOf(f)!));

let crossArea = 0;
let deepCrossArea = 0;
let internalCrossArea = 0;
const pairs = new Set<string>();
for (const f of domainFiles) {
  const a = areaOf(f)!;
  for (const t of importsOf(f)) {
    const b = areaOf(t);
    if (!b || b === a) continue;
    crossArea++;
    pairs.add(`${a}>${b}`);
    if (t !== join(DOMAIN, b, "index.ts")) deepCrossArea++;
    if (/\/internal\.tsx?$/.test(t)) internalCrossArea++;
  }
}
const twoWay = [...pairs].filter((p) => {
  const [a, b] = p.split(">");
  return a! < b! && pairs.has(`${b}>${a}`);
});

// Imports into an area from outside src/domain (transports, jobs, entry points) past its index.
let deepFromOutside = 0;
for (const f of srcFiles.filter((x) => areaOf(x) === null)) {
  for (const t of importsOf(f)) if (areaOf(t) && t !== join(DOMAIN, areaOf(t)!, "index.ts")) deepFromOutside++;
}

const overLong = srcFiles
  .map((f) => ({ file: rel(f), lines: lines(f) }))
  .filter((x) => x.lines > 400)
  .sort((a, b) => b.lines - a.lines);
const looseTopLevel = readdirSync(SRC).filter((n) => /\.(ts|tsx)$/.test(n));

// Domain files exporting three or more functions (the "several verbs in one file" convention).
const manyVerbs = domainFiles
  .map((f) => ({ file: rel(f), n: [...readFileSync(f, "utf8").matchAll(/^export (?:async )?function /gm)].length }))
  .filter((x) => x.n >= 3 && !/\/index\.ts$/.test(x.file));

const testFiles = walk(join(ROOT, "test")).filter((f) => !f.includes("/agents/"));
let anyCount = 0;
let longSleeps = 0;
for (const f of testFiles) {
  const text = readFileSync(f, "utf8");
  anyCount += [...text.matchAll(/(?::\s*any\b|\bas any\b|<any>|any\[\])/g)].length;
  for (const m of text.matchAll(/\b(?:sleep|Bun\.sleep|setTimeout)\([^)]*?(\d[\d_]*)\s*\)/g)) {
    if (Number(m[1]!.replace(/_/g, "")) >= 300) longSleeps++;
  }
}

const readme = existsSync(join(ROOT, "README.md")) ? lines(join(ROOT, "README.md")) : 0;
const figures = {
  readmeLines: readme,
  docsPages: existsSync(join(ROOT, "docs")) ? readdirSync(join(ROOT, "docs")).filter((n) => n.endsWith(".md")).length : 0,
  sourceFiles: srcFiles.length,
  sourceLines: srcFiles.reduce((s, f) => s + lines(f), 0),
  domainAreas: areas.size,
  crossAreaImports: crossArea,
  crossAreaImportsPastIndex: deepCrossArea,
  crossAreaImportsOfInternal: internalCrossArea,
  twoWayAreaPairs: twoWay.length,
  deepImportsFromOutsideDomain: deepFromOutside,
  domainFilesWithThreeOrMoreVerbs: manyVerbs.length,
  sourceFilesOver400Lines: overLong.length,
  looseFilesAtTopOfSrc: looseTopLevel.length,
  testFiles: testFiles.length,
  anyInTests: anyCount,
  sleepsOf300msOrMoreInTests: longSleeps,
};

// ---- The rules (`--check`): docs/architecture.md "Layers and borders" states them; lint runs this.
// 1. Layers, lowest first: a file may import VALUES only from its own layer or a lower one. Types
//    may point up (they are erased when the code runs; a column's JSON shape is a domain type).
const LAYERS: [string, number][] = [
  ["lib/", 0],
  ["core/", 1],
  ["db/", 2],
  ["providers/", 2],
  ["domain/", 3],
  ["log-writer/", 4],
  ["background/", 4],
  ["commands/", 5],
  ["http/", 5],
  ["console/", 6],
];
/** The entry points, the only files at the top of src/: they may import anything. */
const ENTRY_POINTS = ["app.ts", "cli.ts", "compose.ts", "index.ts", "print-config-docs.ts"];
function layerOf(file: string): number {
  const r = relative(SRC, file);
  for (const [prefix, rank] of LAYERS) if (r.startsWith(prefix)) return rank;
  return 99;
}
const MAX_LINES = 400;
const MAX_FUNCTIONS_PER_FILE = 10;

function check(): string[] {
  const breaches: string[] = [];
  for (const name of looseTopLevel)
    if (!ENTRY_POINTS.includes(name))
      breaches.push(`src/${name}: only entry points stand at the top of src/ (${ENTRY_POINTS.join(", ")}); put it in a layer's folder`);
  for (const f of srcFiles) {
    const from = layerOf(f);
    const fromArea = areaOf(f);
    for (const i of importsWithKind(f)) {
      const to = layerOf(i.target);
      // A worker thread's file (`*.thread.ts`) is an entry point of its own: it builds what it runs on.
      if (!i.typeOnly && to > from && from !== 99 && !f.endsWith(".thread.ts"))
        breaches.push(`${rel(f)}:${i.line}: imports ${rel(i.target)}, a higher layer (layers: ${LAYERS.map(([p]) => p).join(" < ")})`);
      const toArea = areaOf(i.target);
      if (toArea && toArea !== fromArea && i.target !== join(DOMAIN, toArea, "index.ts"))
        breaches.push(`${rel(f)}:${i.line}: imports ${rel(i.target)} past the ${toArea} area's index.ts (import from "…/domain/${toArea}")`);
    }
  }
  for (const p of twoWay) breaches.push(`areas ${p.replace(">", " and ")} import each other: one of them must go through the other, never both ways`);
  for (const o of overLong) breaches.push(`${o.file}: ${o.lines} lines (at most ${MAX_LINES}); split it by what its parts do`);
  for (const m of domainFiles.map((f) => ({ file: rel(f), n: [...readFileSync(f, "utf8").matchAll(/^export (?:async )?function\*? /gm)].length })))
    if (m.n > MAX_FUNCTIONS_PER_FILE)
      breaches.push(`${m.file}: exports ${m.n} functions (at most ${MAX_FUNCTIONS_PER_FILE}: one verb, or the verbs of one noun)`);
  return breaches;
}

// `--graph`: the areas in layers, lowest first, each with the areas it imports (docs/architecture.md).
if (process.argv.includes("--graph")) {
  const deps = new Map<string, Set<string>>([...areas].map((a) => [a, new Set<string>()]));
  for (const p of pairs) {
    const [a, b] = p.split(">");
    deps.get(a!)!.add(b!);
  }
  const level = new Map<string, number>();
  const levelOf = (a: string, seen = new Set<string>()): number => {
    if (level.has(a)) return level.get(a)!;
    if (seen.has(a)) return 0;
    seen.add(a);
    const l = Math.max(-1, ...[...deps.get(a)!].map((b) => levelOf(b, seen))) + 1;
    level.set(a, l);
    return l;
  };
  for (const a of areas) levelOf(a);
  const byLevel = [...areas].sort((a, b) => level.get(a)! - level.get(b)! || a.localeCompare(b));
  for (const a of byLevel) console.log(`${String(level.get(a)).padStart(2)}  ${a.padEnd(14)} ${[...deps.get(a)!].sort().join(", ") || "-"}`);
  process.exit(0);
}

if (process.argv.includes("--check")) {
  const breaches = check();
  for (const b of breaches) console.error(b);
  console.error(
    breaches.length ? `house: ${breaches.length} breach(es) of docs/architecture.md "Layers and borders"` : "house: layers, borders and sizes hold",
  );
  process.exit(breaches.length ? 1 : 0);
}

if (process.argv.includes("--json")) {
  console.log(JSON.stringify({ ...figures, twoWay, overLong, manyVerbs: manyVerbs.map((m) => `${m.file} (${m.n})`) }, null, 2));
} else {
  for (const [k, v] of Object.entries(figures)) console.log(`${k.padEnd(34)} ${v}`);
  console.log(`\ntwo-way pairs: ${twoWay.map((p) => p.replace(">", " <-> ")).join(", ") || "none"}`);
  console.log(`over 400 lines: ${overLong.map((o) => `${o.file} ${o.lines}`).join(", ") || "none"}`);
}
