import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../helpers/app";
import { trpcClient, trpcFailure } from "../helpers/trpc";

// "All matching" in the console's dataset table: deleteEntries and setSplit by filter (not only by
// ids), 1,000 entries per transaction, and resplit (an exact random share of the matching entries
// to TEST). Over tRPC, the console's transport.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

type Client = ReturnType<typeof trpcClient>;
type Split = "TRAIN" | "TEST";
const line = (q: string, a: string, split: Split) =>
  JSON.stringify({
    messages: [
      { role: "user", content: q },
      { role: "assistant", content: a },
    ],
    split,
  });

async function newProject(name: string) {
  const p = await t.createProject(name);
  return { p, trpc: trpcClient(t, p.apiKey) };
}

/** A dataset of `n` entries "<tag> i", all TRAIN, added through importJsonl in chunks of 500. */
async function seed(trpc: Client, name: string, groups: { tag: string; n: number; split?: Split }[]) {
  const ds = await trpc.datasets.create.mutate({ name });
  const lines = groups.flatMap((g) => Array.from({ length: g.n }, (_, i) => line(`${g.tag} question ${i}`, `${g.tag} answer ${i}`, g.split ?? "TRAIN")));
  for (let i = 0; i < lines.length; i += 500) {
    const r = await trpc.datasets.importJsonl.mutate({ datasetId: ds.id, jsonl: lines.slice(i, i + 500).join("\n"), firstLine: i + 1 });
    expect(r.errors).toEqual([]);
  }
  return ds.id;
}

/** Every entry of a dataset, read page by page. */
async function allEntries(trpc: Client, datasetId: string) {
  const out: { id: string; split: Split; messages: unknown[] }[] = [];
  let after: string | null = null;
  for (;;) {
    const page: Awaited<ReturnType<Client["datasets"]["listEntries"]["query"]>> = await trpc.datasets.listEntries.query({ datasetId, first: 200, after });
    out.push(...(page.entries as typeof out));
    if (!page.hasNextPage) return out;
    after = page.endCursor;
  }
}

const textOf = (e: { messages: unknown[] }) => (e.messages[0] as { content: string }).content;

/** The dataset's counts agree with a full listing; the listing. */
async function expectExactCounts(trpc: Client, datasetId: string) {
  const [ds, entries] = await Promise.all([trpc.datasets.get.query({ datasetId }), allEntries(trpc, datasetId)]);
  const test = entries.filter((e) => e.split === "TEST").length;
  expect([ds.entryCount, ds.trainCount, ds.testCount]).toEqual([entries.length, entries.length - test, test]);
  expect((await trpc.datasets.countEntries.query({ datasetId, filter: { split: "TEST" } })).count).toBe(test);
  expect((await trpc.datasets.countEntries.query({ datasetId })).count).toBe(entries.length);
  return entries;
}

/** How many transactions the database opened while `run` ran (the app runs in this process). */
async function transactionsDuring<T>(run: () => Promise<T>): Promise<{ result: T; transactions: number }> {
  const db = t.deps.database.db as unknown as { transaction: (...args: unknown[]) => unknown };
  const original = db.transaction;
  let transactions = 0;
  db.transaction = function (this: unknown, ...args: unknown[]) {
    transactions++;
    return original.apply(this, args);
  };
  try {
    return { result: await run(), transactions };
  } finally {
    db.transaction = original;
  }
}

describe("setSplit and deleteEntries by filter", () => {
  test("every matching entry, not only 1,000, in batches of 1,000 each in its own transaction; the others untouched", async () => {
    const { trpc } = await newProject("by-filter");
    const datasetId = await seed(trpc, "big", [
      { tag: "alpha", n: 2_050 },
      { tag: "beta", n: 30 },
    ]);
    const alpha = { search: "alpha" };
    expect((await trpc.datasets.countEntries.query({ datasetId, filter: alpha })).count).toBe(2_050);

    const moved = await transactionsDuring(() => trpc.datasets.setSplit.mutate({ datasetId, filter: alpha, split: "TEST" }));
    expect(moved.result).toEqual({ updated: 2_050 });
    // 1,000 + 1,000 + 50: three batches, three transactions (never one for everything).
    expect(moved.transactions).toBe(3);
    let entries = await expectExactCounts(trpc, datasetId);
    expect(entries.filter((e) => e.split === "TEST").every((e) => textOf(e).startsWith("alpha"))).toBe(true);
    expect(entries.filter((e) => e.split === "TEST")).toHaveLength(2_050);

    // A filter on the split being changed: the walk goes by id, so nothing is skipped or done twice.
    expect(await trpc.datasets.setSplit.mutate({ datasetId, filter: { split: "TEST" }, split: "TRAIN" })).toEqual({ updated: 2_050 });
    expect((await trpc.datasets.countEntries.query({ datasetId, filter: { split: "TEST" } })).count).toBe(0);

    // The filter `{}` is every entry.
    expect(await trpc.datasets.setSplit.mutate({ datasetId, filter: {}, split: "TEST" })).toEqual({ updated: 2_080 });
    await expectExactCounts(trpc, datasetId);

    const removed = await transactionsDuring(() => trpc.datasets.deleteEntries.mutate({ datasetId, filter: { search: "alpha question 1" } }));
    // "alpha question 1", 10..19, 100..199, 1000..1999: 1 + 10 + 100 + 1,000.
    expect(removed.result).toEqual({ deleted: 1_111 });
    expect(removed.transactions).toBe(2);
    entries = await expectExactCounts(trpc, datasetId);
    expect(entries).toHaveLength(2_080 - 1_111);
    expect(entries.some((e) => textOf(e).startsWith("alpha question 1"))).toBe(false);
    expect(entries.filter((e) => textOf(e).startsWith("beta"))).toHaveLength(30);

    // Nothing matching: nothing done, still an answer.
    expect(await trpc.datasets.deleteEntries.mutate({ datasetId, filter: { search: "gamma" } })).toEqual({ deleted: 0 });
    expect(await trpc.datasets.deleteEntries.mutate({ datasetId, filter: { split: "TEST", search: "beta" } })).toEqual({ deleted: 30 });
    expect(await expectExactCounts(trpc, datasetId)).toHaveLength(2_080 - 1_111 - 30);
  }, 60_000);
});

describe("resplit", () => {
  test("exactly round(ratio x n) of the matching entries to TEST, the rest to TRAIN, chosen at random; the others untouched", async () => {
    const { trpc } = await newProject("resplit");
    const datasetId = await seed(trpc, "resplit", [
      { tag: "keep", n: 9, split: "TEST" },
      { tag: "pick", n: 61 },
    ]);
    const filter = { search: "pick" };
    expect(await trpc.datasets.resplit.mutate({ datasetId, filter, testRatio: 0.25 })).toEqual({ matched: 61, test: 15, train: 46 });
    let entries = await expectExactCounts(trpc, datasetId);
    const picked = (xs: typeof entries) => xs.filter((e) => textOf(e).startsWith("pick"));
    expect(picked(entries).filter((e) => e.split === "TEST")).toHaveLength(15);
    expect((await trpc.datasets.countEntries.query({ datasetId, filter: { ...filter, split: "TEST" } })).count).toBe(15);
    // The entries outside the filter keep their split.
    expect(entries.filter((e) => textOf(e).startsWith("keep")).every((e) => e.split === "TEST")).toBe(true);
    const first = new Set(
      picked(entries)
        .filter((e) => e.split === "TEST")
        .map((e) => e.id),
    );

    // Random: another draw picks another set (the chance of the same 15 of 61 is 1 in ~10^14).
    await trpc.datasets.resplit.mutate({ datasetId, filter, testRatio: 0.25 });
    entries = await expectExactCounts(trpc, datasetId);
    const second = new Set(
      picked(entries)
        .filter((e) => e.split === "TEST")
        .map((e) => e.id),
    );
    expect(second.size).toBe(15);
    expect([...second].every((id) => first.has(id))).toBe(false);

    // Rounding: 0.35 x 20 is 7 (not 6 by binary error); all of them; none; every entry without a filter.
    const twenty = await seed(trpc, "twenty", [{ tag: "x", n: 20 }]);
    expect(await trpc.datasets.resplit.mutate({ datasetId: twenty, testRatio: 0.35 })).toEqual({ matched: 20, test: 7, train: 13 });
    expect(await trpc.datasets.resplit.mutate({ datasetId: twenty, testRatio: 1 })).toEqual({ matched: 20, test: 20, train: 0 });
    expect(await trpc.datasets.resplit.mutate({ datasetId: twenty, testRatio: 0 })).toEqual({ matched: 20, test: 0, train: 20 });
    expect(await trpc.datasets.resplit.mutate({ datasetId, testRatio: 0.5 })).toEqual({ matched: 70, test: 35, train: 35 });
    expect((await expectExactCounts(trpc, datasetId)).filter((e) => e.split === "TEST")).toHaveLength(35);
    // Named entries (a hand-picked selection): ids that are not this dataset's are skipped.
    entries = await allEntries(trpc, datasetId);
    const ten = entries.filter((e) => textOf(e).startsWith("pick")).slice(0, 10);
    const rest = new Map(entries.filter((e) => !ten.includes(e)).map((e) => [e.id, e.split]));
    expect(await trpc.datasets.resplit.mutate({ datasetId, entryIds: [...ten.map((e) => e.id), "dse_nope"], testRatio: 0.3 })).toEqual({
      matched: 10,
      test: 3,
      train: 7,
    });
    entries = await expectExactCounts(trpc, datasetId);
    expect(entries.filter((e) => ten.some((x) => x.id === e.id) && e.split === "TEST")).toHaveLength(3);
    for (const e of entries) if (rest.has(e.id)) expect(e.split).toBe(rest.get(e.id)!);
    expect(await trpc.datasets.resplit.mutate({ datasetId, filter: { search: "nothing like it" }, testRatio: 0.5 })).toEqual({
      matched: 0,
      test: 0,
      train: 0,
    });
  }, 60_000);

  test("over 1,000 matching entries: still exact, one transaction per 1,000", async () => {
    const { trpc } = await newProject("resplit-big");
    const datasetId = await seed(trpc, "big", [{ tag: "e", n: 1_203 }]);
    const run = await transactionsDuring(() => trpc.datasets.resplit.mutate({ datasetId, testRatio: 0.2 }));
    expect(run.result).toEqual({ matched: 1_203, test: 241, train: 962 });
    expect(run.transactions).toBe(2);
    expect((await expectExactCounts(trpc, datasetId)).filter((e) => e.split === "TEST")).toHaveLength(241);
  }, 60_000);
});

describe("bad input and other projects", () => {
  test("bad input is VALIDATION (400) with the field named, and changes nothing", async () => {
    const { trpc } = await newProject("bad");
    const datasetId = await seed(trpc, "bad", [{ tag: "b", n: 5 }]);
    const [one] = await allEntries(trpc, datasetId);
    const invalid = async (p: Promise<unknown>, path: (string | number)[]) => {
      const err = await trpcFailure(p);
      expect(err.data?.code).toBe("VALIDATION");
      expect(err.data?.httpStatus).toBe(400);
      expect(err.data?.issues.map((i) => i.path)).toContainEqual(path);
    };
    // Neither ids nor a filter; both.
    await invalid(trpc.datasets.deleteEntries.mutate({ datasetId }), ["entryIds"]);
    await invalid(trpc.datasets.setSplit.mutate({ datasetId, split: "TEST" }), ["entryIds"]);
    await invalid(trpc.datasets.deleteEntries.mutate({ datasetId, entryIds: [one!.id], filter: {} }), ["filter"]);
    await invalid(trpc.datasets.setSplit.mutate({ datasetId, entryIds: [one!.id], filter: {}, split: "TEST" }), ["filter"]);
    // A filter the listing would refuse too.
    await invalid(trpc.datasets.deleteEntries.mutate({ datasetId, filter: { split: "VALID" as "TEST" } }), ["filter", "split"]);
    await invalid(trpc.datasets.setSplit.mutate({ datasetId, filter: { search: "x".repeat(201) }, split: "TEST" }), ["filter", "search"]);
    for (const testRatio of [-0.1, 1.5, Number.NaN, "0.2" as unknown as number]) {
      await invalid(trpc.datasets.resplit.mutate({ datasetId, testRatio }), ["testRatio"]);
    }
    await invalid(trpc.datasets.resplit.mutate({ datasetId } as { datasetId: string; testRatio: number }), ["testRatio"]);
    await invalid(trpc.datasets.resplit.mutate({ datasetId, entryIds: [one!.id], filter: {}, testRatio: 0.5 }), ["filter"]);
    await invalid(trpc.datasets.resplit.mutate({ datasetId, entryIds: [], testRatio: 0.5 }), ["entryIds"]);
    await invalid(trpc.datasets.resplit.mutate({ datasetId, testRatio: 0.5, filter: { source: "web" as "log" } }), ["filter", "source"]);
    const entries = await expectExactCounts(trpc, datasetId);
    expect(entries.map((e) => e.split)).toEqual(["TRAIN", "TRAIN", "TRAIN", "TRAIN", "TRAIN"]);
  });

  test("another project's dataset is NOT_FOUND (404) for every form, and is never touched", async () => {
    const { trpc: mine } = await newProject("mine");
    const { trpc: theirs } = await newProject("theirs");
    const datasetId = await seed(theirs, "theirs", [{ tag: "secret", n: 12 }]);
    const before = await allEntries(theirs, datasetId);
    const notFound = async (p: Promise<unknown>) => {
      const err = await trpcFailure(p);
      expect(err.data?.code).toBe("NOT_FOUND");
      expect(err.data?.httpStatus).toBe(404);
    };
    for (const id of [datasetId, "ds_nope"]) {
      await notFound(mine.datasets.deleteEntries.mutate({ datasetId: id, filter: {} }));
      await notFound(mine.datasets.setSplit.mutate({ datasetId: id, filter: { search: "secret" }, split: "TEST" }));
      await notFound(mine.datasets.resplit.mutate({ datasetId: id, testRatio: 0.5 }));
      await notFound(mine.datasets.resplit.mutate({ datasetId: id, filter: { search: "secret" }, testRatio: 1 }));
      await notFound(mine.datasets.resplit.mutate({ datasetId: id, entryIds: before.map((e) => e.id), testRatio: 1 }));
    }
    // Their entries' ids through my own dataset: not mine either.
    const own = await mine.datasets.create.mutate({ name: "own" });
    expect(await mine.datasets.resplit.mutate({ datasetId: own.id, entryIds: before.map((e) => e.id), testRatio: 1 })).toEqual({
      matched: 0,
      test: 0,
      train: 0,
    });
    expect(await allEntries(theirs, datasetId)).toEqual(before);
    expect(await expectExactCounts(theirs, datasetId)).toHaveLength(12);
  });
});
