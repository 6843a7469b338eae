import { expect, test } from "bun:test";
import { printSchema } from "graphql";
import { resolve } from "node:path";
import { schema } from "../src/http/graphql/schema";
import { buildOpenApiDocument } from "../src/http/rest/openapi";

test("schema/schema.graphql is the printed schema of the code (run `bun run schema:print`)", async () => {
  const committed = await Bun.file(resolve(import.meta.dir, "../schema/schema.graphql")).text();
  expect(committed).toBe(`${printSchema(schema)}\n`);
});

test("the operations CONTRACT.md names for datasets and projects exist", () => {
  const mutations = Object.keys(schema.getMutationType()!.getFields());
  const queries = Object.keys(schema.getQueryType()!.getFields());
  expect(mutations).toEqual(expect.arrayContaining(["createDataset", "deleteDataset", "addDatasetEntries", "createProject"]));
  expect(queries).toEqual(expect.arrayContaining(["dataset", "datasets"]));
});

test("schema/openapi.json is the document the code builds (run `bun run openapi:print`)", async () => {
  const committed = await Bun.file(resolve(import.meta.dir, "../schema/openapi.json")).json();
  expect(committed).toEqual(JSON.parse(JSON.stringify(buildOpenApiDocument())));
});

test("the OpenAPI document covers every REST route of the spec", () => {
  const doc = buildOpenApiDocument() as { openapi: string; paths: Record<string, Record<string, unknown>> };
  expect(doc.openapi).toBe("3.1.0");
  const spec = [
    "post /chat/completions",
    "post /check-cache",
    "post /report",
    "post /report-anthropic",
    "post /logs/update-metadata",
    "get /datasets",
    "post /datasets",
    "delete /datasets/{datasetId}",
    "post /datasets/{datasetId}/entries",
    "get /models",
    "post /models",
    "get /models/{modelSlug}",
    "delete /models/{modelSlug}",
    "post /unstable/finetune/create",
    "post /criteria/judge",
  ];
  const documented = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m} ${path}`));
  expect(documented).toEqual(expect.arrayContaining(spec));
});
