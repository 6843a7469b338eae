import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../helpers/app";
import { gql } from "../helpers/gql";
import { seedLogs } from "../helpers/logs";
import { trpcClient, trpcFailure } from "../helpers/trpc";

// datasets.importLogs as the console's "add to dataset" uses it: a selection (filter.ids) or a
// filter, into an existing dataset or a new one, with the counts shown to the user.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

const answer = (content: string) => ({ choices: [{ index: 0, message: { role: "assistant", content } }] });

describe("datasets.importLogs from the console", () => {
  test("a selection into a new dataset: created, duplicates skipped and invalid logs counted", async () => {
    const p = await t.createProject("import");
    const trpc = trpcClient(t, p.apiKey);
    const logs = await seedLogs(
      t,
      [
        { reqPayload: { messages: [{ role: "user", content: "q1" }] }, respPayload: answer("a1") },
        { reqPayload: { messages: [{ role: "user", content: "q1" }] }, respPayload: answer("a1") }, // duplicate of the first
        { reqPayload: { messages: [{ role: "user", content: "q2" }] }, respPayload: answer("a2"), tags: { pick: "yes" } },
        { reqPayload: { nothing: true }, respPayload: answer("a3"), tags: { pick: "yes" } }, // invalid: no messages
        { reqPayload: { messages: [{ role: "user", content: "q4" }] }, respPayload: answer("a4"), statusCode: 500 }, // not a success
      ],
      p.projectId,
    );
    const [theirs] = await seedLogs(t, [{ reqPayload: { messages: [{ role: "user", content: "secret" }] }, respPayload: answer("s") }]);

    const r = await trpc.datasets.importLogs.mutate({ newDatasetName: "from the console", filter: { ids: [...logs.map((l) => l.id), theirs!.id] } });
    expect(r).toMatchObject({ entriesCreated: 2, duplicatesSkipped: 1, invalidLogs: 1 });
    expect(r.errors).toEqual([{ logId: logs[3]!.id, message: expect.stringContaining("no messages") }]);
    const ds = await trpc.datasets.get.query({ datasetId: r.datasetId });
    expect(ds).toMatchObject({ name: "from the console", entryCount: 2 });
    const entries = (await trpc.datasets.listEntries.query({ datasetId: r.datasetId })).entries;
    expect(JSON.stringify(entries)).not.toContain("secret");

    // A filter into the existing dataset: the q2 log is there already.
    const again = await trpc.datasets.importLogs.mutate({ datasetId: r.datasetId, filter: { tags: [{ key: "pick", equals: "yes" }] } });
    expect(again).toEqual({ datasetId: r.datasetId, entriesCreated: 0, duplicatesSkipped: 1, invalidLogs: 1, errors: [expect.any(Object)] });
    // The detail view finds the entries the log fed.
    expect((await trpc.logs.get.query({ id: logs[2]!.id })).datasetEntries).toEqual([
      { datasetId: r.datasetId, datasetName: "from the console", entryId: expect.any(String) },
    ]);
  });

  test("GraphQL importLogsToDataset takes newDatasetName and returns the dataset id", async () => {
    const [log] = await seedLogs(t, [{ reqPayload: { messages: [{ role: "user", content: "g" }] }, respPayload: answer("h") }]);
    const r = await gql(
      t,
      `mutation($ids: [ID!]) { importLogsToDataset(input: {newDatasetName: "gql-new", filter: {ids: $ids}}) { datasetId entriesCreated duplicatesSkipped invalidLogs } }`,
      { ids: [log!.id] },
    );
    expect(r.data.importLogsToDataset).toMatchObject({ entriesCreated: 1, duplicatesSkipped: 0, invalidLogs: 0 });
    expect(r.data.importLogsToDataset.datasetId).toMatch(/^ds/);
  });

  test("either datasetId or newDatasetName; another project's dataset is NOT_FOUND", async () => {
    const trpc = trpcClient(t);
    const bad = async (input: object) => expect((await trpcFailure(trpc.datasets.importLogs.mutate(input as never))).data?.code).toBe("VALIDATION");
    await bad({ filter: {} });
    await bad({ datasetId: "ds_x", newDatasetName: "both", filter: {} });
    await bad({ newDatasetName: "   " });
    await bad({ newDatasetName: "x", filter: { ids: Array.from({ length: 1001 }, (_, i) => `log_${i}`) } });
    const other = await t.createProject("import-other");
    const theirs = await trpcClient(t, other.apiKey).datasets.create.mutate({ name: "theirs" });
    expect((await trpcFailure(trpc.datasets.importLogs.mutate({ datasetId: theirs.id, filter: {} }))).data?.httpStatus).toBe(404);
    const datasets = await trpc.datasets.list.query();
    expect(datasets.map((d) => d.name)).not.toContain("both");
  });
});
