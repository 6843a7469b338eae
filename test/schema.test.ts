import { expect, test } from "bun:test";
import { printSchema } from "graphql";
import { resolve } from "node:path";
import { schema } from "../src/http/graphql/schema";

test("schema/schema.graphql is the printed schema of the code (run `bun run schema:print`)", async () => {
  const committed = await Bun.file(resolve(import.meta.dir, "../schema/schema.graphql")).text();
  expect(committed).toBe(printSchema(schema) + "\n");
});

test("the operations CONTRACT.md names for datasets and projects exist", () => {
  const mutations = Object.keys(schema.getMutationType()!.getFields());
  const queries = Object.keys(schema.getQueryType()!.getFields());
  expect(mutations).toEqual(expect.arrayContaining(["createDataset", "deleteDataset", "addDatasetEntries", "createProject"]));
  expect(queries).toEqual(expect.arrayContaining(["dataset", "datasets"]));
});
