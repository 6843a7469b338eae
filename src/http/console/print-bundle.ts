// `bun run console:build`: bundles the console as `bun run start` does and prints what each file
// weighs, and what a first visit downloads (gzipped). CONSOLE.md's budget: under 350 KB.
import { buildConsole } from "./console-assets";

const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
const bundle = await buildConsole();
const rows = [...bundle.assets].sort((a, b) => b[1].gzip.byteLength - a[1].gzip.byteLength);
for (const [name, a] of rows) process.stdout.write(`${name.padEnd(32)} ${kb(a.body.byteLength).padStart(10)} ${kb(a.gzip.byteLength).padStart(10)} gzip\n`);
process.stdout.write(`\nbuilt in ${bundle.buildMs} ms; ${bundle.assets.size} files, ${kb(bundle.totalGzipBytes)} gzipped in all\n`);
process.stdout.write(`initial load (entry + static imports + styles): ${kb(bundle.initialGzipBytes)} gzipped (budget 350 KB)\n`);
