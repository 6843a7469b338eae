import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { entryVerdicts, models } from "../../src/db/schema";
import { createTestApp, userAssistant, type TestApp } from "../helpers/app";
import { gql, gqlData } from "../helpers/gql";
import { seedLogs } from "../helpers/logs";
import { trpcClient, trpcFailure } from "../helpers/trpc";

// The dataset verbs the console's Datasets section uses (issue 20): counts, rename, entry filters
// and counts, edit, bulk delete and re-split, sampled log imports, chunked JSONL uploads and a
// paged export; over tRPC (the console's transport) and GraphQL.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

const answer = (content: string) => ({ choices: [{ index: 0, message: { role: "assistant", content } }] });
const qa = (q: string, a: string, split?: "TRAIN" | "TEST") => ({ ...userAssistant(q, a), ...(split ? { split } : {}) });

async function newProject(name: string) {
  const p = await t.createProject(name);
  return { p, trpc: trpcClient(t, p.apiKey) };
}

/** Every entry of a dataset, read page by page. */
async function allEntries(trpc: ReturnType<typeof trpcClient>, datasetId: string) {
  const out = [];
  let after: string | null = null;
  for (;;) {
    const page: Awaited<ReturnType<typeof trpc.datasets.listEntries.query>> = await trpc.datasets.listEntries.query({ datasetId, first: 7, after });
    out.push(...page.entries);
    if (!page.hasNextPage) return out;
    after = page.endCursor;
  }
}

/** The dataset's counts agree with a full listing. */
async function expectExactCounts(trpc: ReturnType<typeof trpcClient>, datasetId: string) {
  const [ds, entries, listed] = await Promise.all([trpc.datasets.get.query({ datasetId }), allEntries(trpc, datasetId), trpc.datasets.list.query()]);
  const train = entries.filter((e) => e.split === "TRAIN").length;
  expect(ds.entryCount).toBe(entries.length);
  expect(ds.trainCount).toBe(train);
  expect(ds.testCount).toBe(entries.length - train);
  expect(listed.find((d) => d.id === datasetId)).toEqual(ds);
  for (const split of ["TRAIN", "TEST"] as const) {
    expect((await trpc.datasets.countEntries.query({ datasetId, filter: { split } })).count).toBe(split === "TRAIN" ? train : entries.length - train);
  }
  return { ds, entries };
}

async function seedVerdict(entryId: string, criterionId: string, judgement: "PASS" | "FAIL" | null) {
  await t.deps.database.db
    .insert(entryVerdicts)
    .values({ entryId, criterionId, version: 1, judgement, error: judgement ? null : "judge failed", createdAt: new Date() });
}

describe("dataset counts and rename", () => {
  test("list and get give entry, TRAIN, TEST and fine-tune counts and updatedAt; rename follows create's rules", async () => {
    const { trpc } = await newProject("counts");
    const ds = await trpc.datasets.create.mutate({ name: "counts" });
    expect(ds).toMatchObject({ entryCount: 0, trainCount: 0, testCount: 0, fineTuneCount: 0 });
    await trpc.datasets.addEntries.mutate({ datasetId: ds.id, entries: [qa("a", "1", "TRAIN"), qa("b", "2", "TRAIN"), qa("c", "3", "TEST")] });
    const now = new Date();
    const p = await t.deps.database.db.query.datasets.findFirst({ where: { id: ds.id } });
    await t.deps.database.db.insert(models).values({
      id: t.deps.ids("model"),
      projectId: p!.projectId,
      slug: "counts-ft",
      baseModel: "b",
      backend: "openai",
      status: "DEPLOYED",
      datasetId: ds.id,
      createdAt: now,
      updatedAt: now,
    });
    const got = await trpc.datasets.get.query({ datasetId: ds.id });
    expect(got).toMatchObject({ name: "counts", entryCount: 3, trainCount: 2, testCount: 1, fineTuneCount: 1 });
    expect(Date.parse(got.updatedAt)).toBeGreaterThanOrEqual(Date.parse(ds.updatedAt));
    expect((await trpc.datasets.list.query()).find((d) => d.id === ds.id)).toEqual(got);

    const renamed = await trpc.datasets.rename.mutate({ id: ds.id, name: "  renamed  " });
    expect(renamed).toMatchObject({ id: ds.id, name: "renamed", entryCount: 3, trainCount: 2, testCount: 1, fineTuneCount: 1 });
    expect(Date.parse(renamed.updatedAt)).toBeGreaterThanOrEqual(Date.parse(got.updatedAt));
    for (const name of ["", "   ", "x".repeat(257)]) {
      const err = await trpcFailure(trpc.datasets.rename.mutate({ id: ds.id, name }));
      expect(err.data?.code).toBe("VALIDATION");
      expect(err.data?.issues[0]?.path).toEqual(["name"]);
    }
    const bad = await trpcFailure(trpc.datasets.rename.mutate({ id: 42 as unknown as string, name: "x" }));
    expect(bad.data?.httpStatus).toBe(400);
    expect((await trpc.datasets.get.query({ datasetId: ds.id })).name).toBe("renamed");
  });

  test("another project's dataset cannot be renamed, counted, edited, deleted from or re-split: 404, never touched", async () => {
    const { trpc: mine } = await newProject("mine");
    const { trpc: theirs } = await newProject("theirs");
    const ds = await theirs.datasets.create.mutate({ name: "theirs" });
    await theirs.datasets.addEntries.mutate({ datasetId: ds.id, entries: [qa("secret", "s", "TRAIN")] });
    const [entry] = await allEntries(theirs, ds.id);
    const own = await mine.datasets.create.mutate({ name: "own" });
    const notFound = async (p: Promise<unknown>) => {
      const err = await trpcFailure(p);
      expect(err.data?.code).toBe("NOT_FOUND");
      expect(err.data?.httpStatus).toBe(404);
    };
    for (const datasetId of [ds.id, "ds_nope"]) {
      await notFound(mine.datasets.rename.mutate({ id: datasetId, name: "mine now" }));
      await notFound(mine.datasets.countEntries.query({ datasetId }));
      await notFound(mine.datasets.updateEntry.mutate({ datasetId, entryId: entry!.id, metadata: { x: "y" } }));
      await notFound(mine.datasets.deleteEntries.mutate({ datasetId, entryIds: [entry!.id] }));
      await notFound(mine.datasets.setSplit.mutate({ datasetId, entryIds: [entry!.id], split: "TEST" }));
      await notFound(mine.datasets.exportPage.query({ datasetId }));
      await notFound(mine.datasets.entry.query({ datasetId, entryId: entry!.id }));
      await notFound(mine.datasets.importJsonl.mutate({ datasetId, jsonl: JSON.stringify(qa("x", "y")), firstLine: 3 }));
    }
    // Their entry's id through my own dataset: not mine either.
    await notFound(mine.datasets.entry.query({ datasetId: own.id, entryId: entry!.id }));
    // Theirs reads it by id, as listed (verdicts included); an id of theirs in another of their datasets is not found.
    expect(await theirs.datasets.entry.query({ datasetId: ds.id, entryId: entry!.id })).toEqual(entry!);
    const other = await theirs.datasets.create.mutate({ name: "theirs too" });
    await notFound(theirs.datasets.entry.query({ datasetId: other.id, entryId: entry!.id }));
    await notFound(mine.datasets.updateEntry.mutate({ datasetId: own.id, entryId: entry!.id, metadata: { x: "y" } }));
    expect(await mine.datasets.deleteEntries.mutate({ datasetId: own.id, entryIds: [entry!.id] })).toEqual({ deleted: 0 });
    expect(await mine.datasets.setSplit.mutate({ datasetId: own.id, entryIds: [entry!.id], split: "TEST" })).toEqual({ updated: 0 });
    const after = await theirs.datasets.get.query({ datasetId: ds.id });
    expect(after).toMatchObject({ name: "theirs", entryCount: 1, trainCount: 1, testCount: 0 });
    expect((await allEntries(theirs, ds.id))[0]).toEqual(entry!);
  });
});

describe("entry filters", () => {
  test("split, source, latest verdict (PASS, FAIL, ERROR, NONE) and text; countEntries agrees with listEntries", async () => {
    const { p, trpc } = await newProject("filters");
    const ds = await trpc.datasets.create.mutate({ name: "filters" });
    await trpc.datasets.addEntries.mutate({
      datasetId: ds.id,
      entries: [
        qa("Where is my ORDER?", "Give me the number", "TRAIN"),
        qa("100% sure_thing", 'say "hi" \\ ok', "TEST"),
        {
          messages: [
            { role: "user", content: [{ type: "text", text: "Weather in Paris" }] },
            {
              role: "assistant",
              content: null,
              tool_calls: [{ id: "c1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }],
            },
          ],
          split: "TRAIN",
        },
      ],
    });
    await trpc.datasets.importJsonl.mutate({ datasetId: ds.id, jsonl: JSON.stringify(qa("uploaded q", "uploaded a", "TEST")) });
    const [log] = await seedLogs(t, [{ reqPayload: { messages: [{ role: "user", content: "logged q" }] }, respPayload: answer("logged a") }], p.projectId);
    await trpc.datasets.importLogs.mutate({ datasetId: ds.id, filter: { ids: [log!.id] } });

    const entries = await allEntries(trpc, ds.id);
    expect(entries.map((e) => e.source)).toEqual(["manual", "manual", "manual", "upload", "log"]);
    expect(entries[4]!.sourceLogId).toBe(log!.id);
    const [order, percent, weather, uploaded, logged] = entries.map((e) => e.id);
    // An imported log draws its split at random: fixed here.
    await trpc.datasets.setSplit.mutate({ datasetId: ds.id, entryIds: [logged!], split: "TRAIN" });

    const crit = "crit_0123456789abcdef0123456789abcdef";
    await seedVerdict(order!, crit, "PASS");
    await seedVerdict(percent!, crit, "FAIL");
    await seedVerdict(weather!, crit, null);

    type Filter = NonNullable<Parameters<typeof trpc.datasets.countEntries.query>[0]["filter"]>;
    const cases: [Filter, (string | undefined)[]][] = [
      [{ split: "TEST" }, [percent, uploaded]],
      [{ source: "manual" }, [order, percent, weather]],
      [{ source: "upload" }, [uploaded]],
      [{ source: "log" }, [logged]],
      [{ verdict: { criterionId: crit, judgement: "PASS" } }, [order]],
      [{ verdict: { criterionId: `${crit}@v1`, judgement: "FAIL" } }, [percent]],
      [{ verdict: { criterionId: crit, judgement: "ERROR" } }, [weather]],
      [{ verdict: { criterionId: crit, judgement: "NONE" } }, [uploaded, logged]],
      [{ verdict: { criterionId: "crit_other", judgement: "NONE" } }, [order, percent, weather, uploaded, logged]],
      [{ search: "order" }, [order]],
      [{ search: "PARIS" }, [weather]], // a text part and a tool call's arguments
      [{ search: "get_weather" }, [weather]],
      [{ search: "100%" }, [percent]], // % and _ are text, not wildcards
      [{ search: "e_t" }, [percent]],
      [{ search: "%" }, [percent]],
      [{ search: '"hi" \\' }, [percent]],
      [{ search: "role" }, []], // keys and roles are not searched
      [{ search: "user" }, []],
      [{ search: "LOGGED" }, [logged]],
      [{ search: "   " }, [order, percent, weather, uploaded, logged]],
      [{ split: "TEST", source: "upload", search: "uploaded" }, [uploaded]],
      [{ split: "TRAIN", verdict: { criterionId: crit, judgement: "FAIL" } }, []],
    ];
    for (const [filter, ids] of cases) {
      const page = await trpc.datasets.listEntries.query({ datasetId: ds.id, ...filter });
      expect({ filter, ids: page.entries.map((e) => e.id) }).toEqual({ filter, ids: ids as string[] });
      expect({ filter, count: (await trpc.datasets.countEntries.query({ datasetId: ds.id, filter })).count }).toEqual({ filter, count: ids.length });
    }
    expect((await trpc.datasets.countEntries.query({ datasetId: ds.id })).count).toBe(5);

    for (const filter of [
      { split: "BOTH" },
      { source: "api" },
      { verdict: { criterionId: crit, judgement: "MAYBE" } },
      { verdict: { criterionId: "", judgement: "PASS" } },
      { search: "x".repeat(201) },
      { search: 5 },
    ]) {
      const err = await trpcFailure(trpc.datasets.countEntries.query({ datasetId: ds.id, filter: filter as never }));
      expect(err.data?.code).toBe("VALIDATION");
      const listed = await trpcFailure(trpc.datasets.listEntries.query({ datasetId: ds.id, ...(filter as object) } as never));
      expect(listed.data?.httpStatus).toBe(400);
    }
  });
});

describe("datasets.updateEntry", () => {
  test("edits fields, validates like an added entry with field paths, refuses duplicates, drops verdicts on content change", async () => {
    const { p, trpc } = await newProject("edit");
    const ds = await trpc.datasets.create.mutate({ name: "edit" });
    await trpc.datasets.addEntries.mutate({ datasetId: ds.id, entries: [qa("one", "1", "TRAIN"), qa("two", "2", "TRAIN")] });
    const [one, two] = await allEntries(trpc, ds.id);
    const crit = "crit_00000000000000000000000000000001";
    await seedVerdict(one!.id, crit, "PASS");

    // Metadata and split only: content and verdicts stay.
    const meta = await trpc.datasets.updateEntry.mutate({ datasetId: ds.id, entryId: one!.id, metadata: { reviewed: "yes" }, split: "TEST" });
    expect(meta).toMatchObject({ id: one!.id, split: "TEST", metadata: { reviewed: "yes" }, messages: one!.messages, source: "manual" });
    expect(meta.verdicts.map((v) => v.judgement)).toEqual(["PASS"]);

    // A conversation with a tool call and its result, tools and tool_choice.
    const messages = [
      { role: "system", content: "Use tools" },
      { role: "user", content: "Weather?" },
      { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }] },
      { role: "tool", tool_call_id: "c1", content: "sunny" },
      { role: "assistant", content: "It is sunny." },
    ];
    const tools = [{ type: "function", function: { name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } } } }];
    const edited = await trpc.datasets.updateEntry.mutate({
      datasetId: ds.id,
      entryId: one!.id,
      messages,
      tools,
      toolChoice: "auto",
      responseFormat: { type: "text" },
    });
    expect(edited).toMatchObject({ messages, tools, toolChoice: "auto", responseFormat: { type: "text" }, split: "TEST", metadata: { reviewed: "yes" } });
    expect(edited.verdicts).toEqual([]); // they judged content that is gone
    expect((await allEntries(trpc, ds.id)).find((e) => e.id === one!.id)).toEqual(edited);
    // The REST API reads the edit back.
    const rest = await (await t.request("GET", `/api/v1/datasets/${ds.id}/export?split=TEST`, { key: p.apiKey })).text();
    expect(JSON.parse(rest.trim())).toMatchObject({ messages, tools, tool_choice: "auto", response_format: { type: "text" } });

    // null clears tools, toolChoice and responseFormat.
    const cleared = await trpc.datasets.updateEntry.mutate({ datasetId: ds.id, entryId: one!.id, tools: null, toolChoice: null, responseFormat: null });
    expect(cleared).toMatchObject({ tools: null, toolChoice: null, responseFormat: null, messages });

    // Field-level issues, paths in the input's names.
    const bad: [Record<string, unknown>, (string | number)[]][] = [
      [
        { messages: messages.map((m, i) => (i === 2 ? { ...m, tool_calls: [{ id: "c1", type: "function", function: { name: "x", arguments: 42 } }] } : m)) },
        ["messages", 2, "tool_calls", 0, "function", "arguments"],
      ],
      [{ messages: [{ role: "user", content: "no answer" }] }, ["messages", 0]],
      [{ messages: [] }, ["messages"]],
      [
        {
          messages: [
            { role: "robot", content: "x" },
            { role: "assistant", content: "y" },
          ],
        },
        ["messages", 0, "role"],
      ],
      [
        {
          messages: [
            { role: "user", content: "x", extra: 1 },
            { role: "assistant", content: "y" },
          ],
        },
        ["messages", 0],
      ],
      [{ toolChoice: "sometimes" }, ["toolChoice"]],
      [{ responseFormat: { type: "yaml" } }, ["responseFormat", "type"]],
      [{ tools: [{ type: "function", function: { name: "" } }] }, ["tools", 0, "function", "name"]],
      [{ metadata: { n: 1 } }, ["metadata", "n"]],
      [{ split: "VALIDATION" }, ["split"]],
      [{ messages: "hello" }, ["messages"]],
    ];
    for (const [patch, path] of bad) {
      const err = await trpcFailure(trpc.datasets.updateEntry.mutate({ datasetId: ds.id, entryId: one!.id, ...(patch as object) } as never));
      expect({ patch, code: err.data?.code, status: err.data?.httpStatus }).toEqual({ patch, code: "VALIDATION", status: 400 });
      expect({ patch, paths: err.data?.issues.map((i) => i.path) }).toEqual({ patch, paths: expect.arrayContaining([path]) });
    }
    expect((await allEntries(trpc, ds.id)).find((e) => e.id === one!.id)).toEqual(cleared);

    // The same content as another entry: CONFLICT naming it; nothing changed.
    const dup = await trpcFailure(trpc.datasets.updateEntry.mutate({ datasetId: ds.id, entryId: one!.id, messages: two!.messages }));
    expect(dup.data?.code).toBe("CONFLICT");
    expect(dup.data?.httpStatus).toBe(409);
    expect(dup.message).toContain(two!.id);
    expect(dup.data?.issues).toEqual([{ path: ["messages"], message: `messages: duplicate of entry ${two!.id}` }]);
    // Re-saving an entry unchanged is no conflict.
    expect((await trpc.datasets.updateEntry.mutate({ datasetId: ds.id, entryId: two!.id, messages: two!.messages })).messages).toEqual(two!.messages);

    const missing = await trpcFailure(trpc.datasets.updateEntry.mutate({ datasetId: ds.id, entryId: "dse_nope", metadata: {} }));
    expect(missing.data?.httpStatus).toBe(404);
  });
});

describe("bulk delete and re-split keep counts and dedupe exact", () => {
  test("add, edit, delete, re-split, re-add a deleted entry's content: counts equal a full listing", async () => {
    const { p, trpc } = await newProject("bulk");
    const ds = await trpc.datasets.create.mutate({ name: "bulk" });
    const logs = await seedLogs(
      t,
      Array.from({ length: 12 }, (_, i) => ({
        reqPayload: { messages: [{ role: "user", content: `q${i}` }] },
        respPayload: answer(`a${i}`),
        tags: { batch: "bulk" },
      })),
      p.projectId,
    );
    const imported = await trpc.datasets.importLogs.mutate({ datasetId: ds.id, filter: { tags: [{ key: "batch", equals: "bulk" }] } });
    expect(imported.entriesCreated).toBe(12);
    await trpc.datasets.addEntries.mutate({ datasetId: ds.id, entries: Array.from({ length: 8 }, (_, i) => qa(`manual ${i}`, "m")) });
    let { entries } = await expectExactCounts(trpc, ds.id);
    expect(entries).toHaveLength(20);

    // Edit a log entry to new content; its old content is free again, its new content is taken.
    const logEntry = entries.find((e) => e.sourceLogId === logs[0]!.id)!;
    await trpc.datasets.updateEntry.mutate({ datasetId: ds.id, entryId: logEntry.id, messages: qa("edited", "e").messages });
    const [freshLog] = await seedLogs(t, [{ reqPayload: { messages: [{ role: "user", content: "edited" }] }, respPayload: answer("e") }], p.projectId);
    expect(await trpc.datasets.importLogs.mutate({ datasetId: ds.id, filter: { ids: [freshLog!.id, logs[0]!.id] } })).toMatchObject({
      entriesCreated: 1, // logs[0]'s content (q0/a0) again
      duplicatesSkipped: 1, // the edited content
    });

    // Delete three (plus ids that are not this dataset's), re-split four.
    entries = await allEntries(trpc, ds.id);
    // (Not the entries of logs[0]: one was edited, the other holds its content again.)
    const doomed = entries.filter((e) => e.source === "log" && e.sourceLogId !== logs[0]!.id).slice(0, 3);
    expect(await trpc.datasets.deleteEntries.mutate({ datasetId: ds.id, entryIds: [...doomed.map((e) => e.id), doomed[0]!.id, "dse_nope"] })).toEqual({
      deleted: 3,
    });
    expect(await trpc.datasets.deleteEntries.mutate({ datasetId: ds.id, entryIds: doomed.map((e) => e.id) })).toEqual({ deleted: 0 });
    const moved = entries.filter((e) => !doomed.includes(e)).slice(0, 4);
    expect(await trpc.datasets.setSplit.mutate({ datasetId: ds.id, entryIds: moved.map((e) => e.id), split: "TEST" })).toEqual({ updated: 4 });
    ({ entries } = await expectExactCounts(trpc, ds.id));
    expect(entries).toHaveLength(18);
    for (const m of moved) expect(entries.find((e) => e.id === m.id)!.split).toBe("TEST");
    expect(await trpc.datasets.setSplit.mutate({ datasetId: ds.id, entryIds: moved.map((e) => e.id), split: "TRAIN" })).toEqual({ updated: 4 });
    await expectExactCounts(trpc, ds.id);

    // A deleted entry's content can come back: it is no duplicate any more.
    const doomedLogs = doomed.map((e) => e.sourceLogId!);
    expect(await trpc.datasets.importLogs.mutate({ datasetId: ds.id, filter: { ids: doomedLogs } })).toMatchObject({ entriesCreated: 3, duplicatesSkipped: 0 });
    ({ entries } = await expectExactCounts(trpc, ds.id));
    expect(entries).toHaveLength(21);
    // ... and exactly once.
    expect(await trpc.datasets.importLogs.mutate({ datasetId: ds.id, filter: { ids: doomedLogs } })).toMatchObject({ entriesCreated: 0, duplicatesSkipped: 3 });

    // Bad input: VALIDATION, nothing touched.
    for (const entryIds of [[], Array.from({ length: 1001 }, (_, i) => `dse_${i}`), [""], [7]]) {
      const del = await trpcFailure(trpc.datasets.deleteEntries.mutate({ datasetId: ds.id, entryIds: entryIds as string[] }));
      expect(del.data?.code).toBe("VALIDATION");
      const split = await trpcFailure(trpc.datasets.setSplit.mutate({ datasetId: ds.id, entryIds: entryIds as string[], split: "TEST" }));
      expect(split.data?.code).toBe("VALIDATION");
    }
    const badSplit = await trpcFailure(trpc.datasets.setSplit.mutate({ datasetId: ds.id, entryIds: [entries[0]!.id], split: "VALID" as "TEST" }));
    expect(badSplit.data?.issues[0]?.path).toEqual(["split"]);
    expect((await expectExactCounts(trpc, ds.id)).entries).toHaveLength(21);
    // 1,000 ids is the cap, not above it.
    expect(
      await trpc.datasets.setSplit.mutate({
        datasetId: ds.id,
        entryIds: [...entries.map((e) => e.id), ...Array.from({ length: 979 }, (_, i) => `dse_${i}`)],
        split: "TRAIN",
      }),
    ).toEqual({ updated: 21 });
  });
});

describe("filling a dataset", () => {
  test("importLogs sampleSize: a random sample of the logs the filter matches, matching logs.count's preview", async () => {
    const { p, trpc } = await newProject("sample");
    await seedLogs(
      t,
      Array.from({ length: 40 }, (_, i) => ({
        reqPayload: { messages: [{ role: "user", content: `s${i}` }] },
        respPayload: answer(`r${i}`),
        tags: { pick: i % 2 ? "yes" : "no" },
        statusCode: i === 1 ? 500 : 200,
      })),
      p.projectId,
    );
    const filter = { tags: [{ key: "pick", equals: "yes" }] };
    // What the console previews: the filter's logs with status 200 (the import's condition).
    const preview = await trpc.logs.count.query({ filter: { ...filter, statusCode: 200 } });
    expect(preview).toEqual({ count: 19, exact: true });

    const sampled = await trpc.datasets.importLogs.mutate({ newDatasetName: "sample", filter, sampleSize: 7 });
    expect(sampled.entriesCreated).toBe(7);
    const entries = await allEntries(trpc, sampled.datasetId);
    const questions = entries.map((e) => (e.messages[0] as { content: string }).content);
    for (const q of questions) {
      const i = Number(q.slice(1));
      expect(i % 2).toBe(1);
      expect(i).not.toBe(1);
    }
    // A bigger sample than matches takes them all, once.
    const all = await trpc.datasets.importLogs.mutate({ datasetId: sampled.datasetId, filter, sampleSize: 1000 });
    expect(all).toMatchObject({ entriesCreated: 12, duplicatesSkipped: 7 });
    expect((await trpc.datasets.get.query({ datasetId: sampled.datasetId })).entryCount).toBe(preview.count);
    // The sample is random: many samples of 3 do not all pick the same logs.
    const picks = new Set<string>();
    for (let i = 0; i < 6; i++) {
      const r = await trpc.datasets.importLogs.mutate({ newDatasetName: `s${i}`, filter, sampleSize: 3 });
      const e = await allEntries(trpc, r.datasetId);
      picks.add(
        e
          .map((x) => (x.messages[0] as { content: string }).content)
          .sort()
          .join(),
      );
    }
    expect(picks.size).toBeGreaterThan(1);
    for (const sampleSize of [0, -1, 1.5, 100_001]) {
      const err = await trpcFailure(trpc.datasets.importLogs.mutate({ newDatasetName: "bad", filter, sampleSize }));
      expect(err.data?.code).toBe("VALIDATION");
      expect(err.data?.issues[0]?.path).toEqual(["sampleSize"]);
    }
  });

  test("importJsonl in chunks: firstLine numbers the errors by the file's lines", async () => {
    const { trpc } = await newProject("chunks");
    const ds = await trpc.datasets.create.mutate({ name: "chunks" });
    const lines = Array.from({ length: 10 }, (_, i) => JSON.stringify(qa(`l${i + 1}`, "a")));
    lines[3] = "{not json";
    lines[7] = JSON.stringify({ messages: [{ role: "user", content: "no answer" }] });
    const chunks = [lines.slice(0, 5), lines.slice(5)];
    const first = await trpc.datasets.importJsonl.mutate({ datasetId: ds.id, jsonl: chunks[0]!.join("\n") });
    const second = await trpc.datasets.importJsonl.mutate({ datasetId: ds.id, jsonl: `${chunks[1]!.join("\n")}\n`, firstLine: 6 });
    expect(first).toEqual({ entriesCreated: 4, errorCount: 1, errors: [{ line: 4, message: "not valid JSON" }] });
    expect(second).toMatchObject({ entriesCreated: 4, errorCount: 1, errors: [{ line: 8, message: expect.stringContaining("assistant") }] });
    const entries = await allEntries(trpc, ds.id);
    expect(entries.every((e) => e.source === "upload")).toBe(true);
    expect(entries).toHaveLength(8);
    for (const firstLine of [0, -3, 1.5, "2"]) {
      const err = await trpcFailure(trpc.datasets.importJsonl.mutate({ datasetId: ds.id, jsonl: lines[0]!, firstLine: firstLine as number }));
      expect(err.data?.code).toBe("VALIDATION");
    }
    expect((await trpc.datasets.get.query({ datasetId: ds.id })).entryCount).toBe(8);
  });
});

describe("datasets.exportPage", () => {
  test("pages join to the REST export's bytes, for the whole dataset, a split and a verdict", async () => {
    const { p, trpc } = await newProject("export");
    const ds = await trpc.datasets.create.mutate({ name: "export" });
    await trpc.datasets.addEntries.mutate({
      datasetId: ds.id,
      entries: Array.from({ length: 23 }, (_, i) => ({
        ...qa(`e${i}`, `é ${i}`, i % 3 ? "TRAIN" : "TEST"),
        metadata: { i: String(i) },
        ...(i === 4 ? { response_format: { type: "json_object" } } : {}),
      })),
    });
    const entries = await allEntries(trpc, ds.id);
    const crit = "crit_00000000000000000000000000000002";
    for (const e of entries.slice(0, 9)) await seedVerdict(e.id, crit, "PASS");
    await seedVerdict(entries[9]!.id, crit, "FAIL");

    const pagesOf = async (input: Omit<Parameters<typeof trpc.datasets.exportPage.query>[0], "datasetId" | "after">) => {
      let text = "";
      let after: string | null = null;
      let pages = 0;
      for (;;) {
        const page: Awaited<ReturnType<typeof trpc.datasets.exportPage.query>> = await trpc.datasets.exportPage.query({ datasetId: ds.id, ...input, after });
        pages++;
        for (const line of page.lines) text += `${line}\n`;
        if (!page.hasNextPage) return { text, pages };
        after = page.endCursor;
      }
    };
    const rest = async (query: string) => (await t.request("GET", `/api/v1/datasets/${ds.id}/export${query}`, { key: p.apiKey })).text();

    const whole = await pagesOf({ first: 5 });
    expect(whole.pages).toBe(5);
    expect(whole.text).toBe(await rest(""));
    expect(whole.text.trim().split("\n")).toHaveLength(23);
    expect((await pagesOf({ split: "TEST", first: 500 })).text).toBe(await rest("?split=TEST"));
    const passing = await pagesOf({ verdict: { criterionId: crit, judgement: "PASS" }, first: 4 });
    expect(passing.text).toBe(await rest(`?criterion=${crit}&judgement=PASS`));
    expect(passing.text.trim().split("\n")).toHaveLength(9);
    const unjudged = await pagesOf({ verdict: { criterionId: crit, judgement: "NONE" } });
    expect(unjudged.text).toBe(await rest(`?criterion=${crit}&judgement=NONE`));
    expect(unjudged.text.trim().split("\n")).toHaveLength(13);
    // Old REST clients: judgement defaults to PASS.
    expect(await rest(`?criterion=${crit}`)).toBe(passing.text);

    const empty = await trpc.datasets.exportPage.query({ datasetId: ds.id, split: "TRAIN", verdict: { criterionId: crit, judgement: "FAIL" } });
    expect(empty).toEqual({ lines: [], endCursor: null, hasNextPage: false });
    for (const input of [{ first: 501 }, { first: 0 }, { after: "not-a-cursor" }, { split: "ALL" }]) {
      const err = await trpcFailure(trpc.datasets.exportPage.query({ datasetId: ds.id, ...(input as object) } as never));
      expect({ input, code: err.data?.code }).toEqual({ input, code: "VALIDATION" });
    }
    expect((await t.request("GET", `/api/v1/datasets/${ds.id}/export?criterion=${crit}&judgement=MAYBE`, { key: p.apiKey })).status).toBe(400);
  });
});

describe("GraphQL", () => {
  test("counts, rename, filters, count, edit, bulk delete and split, JSONL chunks, export pages; other projects' 404", async () => {
    const { p } = await newProject("gql");
    const key = { key: p.apiKey };
    const created = await gqlData(t, `mutation { createDataset(input: {name: "g"}) { id } }`, {}, key);
    const id = created.createDataset.id as string;
    const imported = await gqlData(
      t,
      `mutation($id: ID!, $jsonl: String!) { importDatasetJsonl(input: {datasetId: $id, jsonl: $jsonl, firstLine: 11}) { entriesCreated errorCount errors { line message } } }`,
      {
        id,
        jsonl: [JSON.stringify(qa("alpha", "1", "TRAIN")), "nope", JSON.stringify(qa("beta", "2", "TEST")), JSON.stringify(qa("gamma", "3", "TRAIN"))].join(
          "\n",
        ),
      },
      key,
    );
    expect(imported.importDatasetJsonl).toEqual({ entriesCreated: 3, errorCount: 1, errors: [{ line: 12, message: "not valid JSON" }] });

    const renamed = await gqlData(
      t,
      `mutation($id: ID!) { renameDataset(input: {id: $id, name: "g2"}) { name entryCount trainCount testCount fineTuneCount updatedAt } }`,
      { id },
      key,
    );
    expect(renamed.renameDataset).toMatchObject({ name: "g2", entryCount: 3, trainCount: 2, testCount: 1, fineTuneCount: 0 });

    const read = await gqlData(
      t,
      `query($id: ID!) { dataset(id: $id) { entries(first: 10, source: "upload", search: "ALPH") { edges { node { id source split } } } }
        all: datasetEntryCount(datasetId: $id) train: datasetEntryCount(datasetId: $id, filter: {split: "TRAIN", search: "a"}) }`,
      { id },
      key,
    );
    expect(read.dataset.entries.edges.map((e: { node: { source: string } }) => e.node.source)).toEqual(["upload"]);
    expect(read.all).toBe(3);
    expect(read.train).toBe(2);
    const alpha = read.dataset.entries.edges[0].node.id as string;

    const edited = await gqlData(
      t,
      `mutation($id: ID!, $e: ID!, $m: [JSON!]) { updateDatasetEntry(input: {datasetId: $id, entryId: $e, messages: $m, metadata: {k: "v"}, split: "TEST"}) { id split metadata messages verdicts { criterionId } } }`,
      { id, e: alpha, m: qa("alpha!", "1").messages },
      key,
    );
    expect(edited.updateDatasetEntry).toMatchObject({ id: alpha, split: "TEST", metadata: { k: "v" }, messages: qa("alpha!", "1").messages });
    const invalid = await gql(
      t,
      `mutation($id: ID!, $e: ID!) { updateDatasetEntry(input: {datasetId: $id, entryId: $e, toolChoice: "sometimes"}) { id } }`,
      { id, e: alpha },
      key,
    );
    expect(invalid.errors[0].extensions.code).toBe("VALIDATION");
    expect(invalid.errors[0].extensions.issues[0].path).toEqual(["toolChoice"]);
    const dup = await gql(
      t,
      `mutation($id: ID!, $e: ID!, $m: [JSON!]) { updateDatasetEntry(input: {datasetId: $id, entryId: $e, messages: $m}) { id } }`,
      { id, e: alpha, m: qa("beta", "2").messages },
      key,
    );
    expect(dup.errors[0].extensions.code).toBe("CONFLICT");

    const split = await gqlData(
      t,
      `mutation($id: ID!, $e: ID!) { setDatasetEntriesSplit(input: {datasetId: $id, entryIds: [$e], split: "TRAIN"}) { updated } }`,
      { id, e: alpha },
      key,
    );
    expect(split.setDatasetEntriesSplit.updated).toBe(1);
    const badSplit = await gql(
      t,
      `mutation($id: ID!, $e: ID!) { setDatasetEntriesSplit(input: {datasetId: $id, entryIds: [$e], split: "NOPE"}) { updated } }`,
      { id, e: alpha },
      key,
    );
    expect(badSplit.errors[0].extensions.code).toBe("VALIDATION");

    const exported = await gqlData(
      t,
      `query($id: ID!) { datasetExportPage(datasetId: $id, filter: {split: "TRAIN"}, first: 1) { lines endCursor hasNextPage } }`,
      { id },
      key,
    );
    expect(exported.datasetExportPage.lines).toHaveLength(1);
    expect(exported.datasetExportPage.hasNextPage).toBe(true);

    // Another project sees none of it.
    const other = await t.createProject("gql-other");
    const theirs = { key: other.apiKey };
    for (const [q, v] of [
      [`mutation($id: ID!) { renameDataset(input: {id: $id, name: "x"}) { id } }`, { id }],
      [`query($id: ID!) { datasetEntryCount(datasetId: $id) }`, { id }],
      [`mutation($id: ID!, $e: ID!) { updateDatasetEntry(input: {datasetId: $id, entryId: $e, metadata: {}}) { id } }`, { id, e: alpha }],
      [`mutation($id: ID!, $e: ID!) { deleteDatasetEntries(input: {datasetId: $id, entryIds: [$e]}) { deleted } }`, { id, e: alpha }],
      [`mutation($id: ID!, $e: ID!) { setDatasetEntriesSplit(input: {datasetId: $id, entryIds: [$e], split: "TEST"}) { updated } }`, { id, e: alpha }],
      [`query($id: ID!) { datasetExportPage(datasetId: $id) { lines } }`, { id }],
      [`mutation($id: ID!) { importDatasetJsonl(input: {datasetId: $id, jsonl: "{}"}) { entriesCreated } }`, { id }],
    ] as const) {
      const r = await gql(t, q, v, theirs);
      expect({ q, code: r.errors?.[0]?.extensions?.code }).toEqual({ q, code: "NOT_FOUND" });
    }

    const deleted = await gqlData(
      t,
      `mutation($id: ID!, $e: ID!) { deleteDatasetEntries(input: {datasetId: $id, entryIds: [$e]}) { deleted } }`,
      { id, e: alpha },
      key,
    );
    expect(deleted.deleteDatasetEntries.deleted).toBe(1);
    const finalDs = await gqlData(t, `query($id: ID!) { dataset(id: $id) { name entryCount trainCount testCount } }`, { id }, key);
    expect(finalDs.dataset).toEqual({ name: "g2", entryCount: 2, trainCount: 1, testCount: 1 });
  });
});
