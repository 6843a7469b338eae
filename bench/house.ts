// The house in figures: what issue 60 (the third pass over the structure) measures, printed by one
// command so that before and after are counted the same way.
//
//   bun run house            # a table on stdout
//   bun run house --json     # the same figures as JSON
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

const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;
function importsOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const out: string[] = [];
  for (const m of text.matchAll(IMPORT)) {
    const target = resolveSpecifier(file, m[1] ?? m[2]!);
    if (target) out.push(target);
  }
  return out;
}

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
    if (!/\/index\.tsx?$/.test(t)) deepCrossArea++;
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
  for (const t of importsOf(f)) if (areaOf(t) && !/\/index\.tsx?$/.test(t)) deepFromOutside++;
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

if (process.argv.includes("--json")) {
  console.log(JSON.stringify({ ...figures, twoWay, overLong, manyVerbs: manyVerbs.map((m) => `${m.file} (${m.n})`) }, null, 2));
} else {
  for (const [k, v] of Object.entries(figures)) console.log(`${k.padEnd(34)} ${v}`);
  console.log(`\ntwo-way pairs: ${twoWay.map((p) => p.replace(">", " <-> ")).join(", ") || "none"}`);
  console.log(`over 400 lines: ${overLong.map((o) => `${o.file} ${o.lines}`).join(", ") || "none"}`);
}
