// Writes schema/schema.graphql from the code (`bun run schema:print`); a test fails on drift.
import { printSchema } from "graphql";
import { resolve } from "node:path";
import { schema } from "./schema";

const path = resolve(import.meta.dir, "../../../schema/schema.graphql");
await Bun.write(path, `${printSchema(schema)}\n`);
console.log(`wrote ${path}`);
