// Bundles the console in a process of its own (bundle-console.ts starts it): the bundler's memory
// (tens of megabytes) goes away with this process instead of staying in the server's. Writes the
// files to the directory given and a manifest.json of them; exits 1 with the bundler's messages.
import { writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { bundleOptions } from "./bundle-options";

const outdir = process.argv[2];
if (!outdir) {
  console.error("usage: bundle.child.ts <outdir>");
  process.exit(2);
}
const result = await Bun.build({ ...bundleOptions(), outdir });
if (!result.success) {
  console.error(result.logs.map((l) => String(l)).join("\n"));
  process.exit(1);
}
const files = result.outputs
  .filter((o) => o.kind !== "sourcemap")
  .map((o) => ({ name: relative(outdir, o.path).replace(/^\.\//, ""), kind: o.kind, type: o.type }));
writeFileSync(join(outdir, "manifest.json"), JSON.stringify(files));
process.exit(0);
