// Writes schema/openapi.json from the code (`bun run openapi:print`); a test fails on drift.
import { resolve } from "node:path";
import { buildOpenApiDocument } from "./openapi";

const path = resolve(import.meta.dir, "../../../schema/openapi.json");
await Bun.write(path, `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`);
console.log(`wrote ${path}`);
