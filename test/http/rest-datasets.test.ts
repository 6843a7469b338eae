import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApp, userAssistant, type TestApp } from "../helpers/app";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const json = async (res: Response) => (await res.json()) as any;

async function newDataset(name = "ds", key?: string) {
  const res = await t.request("POST", "/api/v1/datasets", { body: { name }, key });
  expect(res.status).toBe(200);
  return json(res);
}

describe("REST datasets", () => {
  test("create, list, add entries, counts and delete", async () => {
    const created = await newDataset("support-bot");
    expect(created).toMatchObject({ object: "dataset", name: "support-bot", dataset_entry_count: 0, fine_tune_count: 0 });
    expect(created.id).toMatch(/^ds_[0-9a-f]{32}$/);
    expect(new Date(created.created).toISOString()).toBe(created.created);
    expect(new Date(created.updated).toISOString()).toBe(created.updated);

    const add = await t.request("POST", `/api/v1/datasets/${created.id}/entries`, {
      body: { entries: [userAssistant("a", "1"), userAssistant("b", "2"), userAssistant("c", "3")] },
    });
    expect(add.status).toBe(200);
    expect(await json(add)).toEqual({
      object: "dataset.entries.creation",
      entries_created: 3,
      errors: { object: "list", data: [] },
    });

    const list = await json(await t.request("GET", "/api/v1/datasets"));
    expect(list.object).toBe("list");
    const row = list.data.find((d: any) => d.id === created.id);
    expect(row).toMatchObject({ object: "dataset", dataset_entry_count: 3, fine_tune_count: 0 });
    expect(row.updated >= created.updated).toBe(true);

    const del = await t.request("DELETE", `/api/v1/datasets/${created.id}`);
    expect(del.status).toBe(200);
    expect(await json(del)).toEqual({ id: created.id, object: "dataset", deleted: true });
    const after = await json(await t.request("GET", "/api/v1/datasets"));
    expect(after.data.some((d: any) => d.id === created.id)).toBe(false);
    // Its entries went with it.
    const rows = await t.deps.database.db.query.datasetEntries.findMany({ where: { datasetId: created.id } });
    expect(rows).toHaveLength(0);
    // Deleting again: gone.
    expect((await t.request("DELETE", `/api/v1/datasets/${created.id}`)).status).toBe(404);
  });

  test("entries keep what was sent, with the spec's defaults filled in", async () => {
    const ds = await newDataset();
    const entry = {
      messages: [
        { role: "system" },
        { role: "developer", content: [{ type: "text", text: "be brief" }], name: "dev" },
        {
          role: "user",
          content: [
            { type: "text", text: "look" },
            { type: "image_url", image_url: { url: "https://x/y.png", detail: "low" } },
          ],
        },
        { role: "assistant", tool_calls: [{ id: "call_1", type: "function", function: { name: "lookup", arguments: "{}" } }] },
        { role: "tool", tool_call_id: "call_1", content: "found" },
        { role: "assistant", content: "done" },
      ],
      tools: [{ type: "function", function: { name: "lookup", parameters: { type: "object" }, description: "d", strict: true } }],
      tool_choice: "none",
      response_format: { type: "text" },
      metadata: { prompt_id: "p1" },
      split: "TEST",
    };
    const res = await json(await t.request("POST", `/api/v1/datasets/${ds.id}/entries`, { body: { entries: [entry] } }));
    expect(res.entries_created).toBe(1);
    const [row] = await t.deps.database.db.query.datasetEntries.findMany({ where: { datasetId: ds.id } });
    expect(row!.split).toBe("TEST");
    expect(row!.metadata).toEqual({ prompt_id: "p1" });
    expect(row!.toolChoice).toBe("none");
    expect(row!.responseFormat).toEqual({ type: "text" });
    expect(row!.tools).toEqual(entry.tools);
    const msgs = row!.messages as any[];
    expect(msgs[0]).toEqual({ role: "system", content: "" });
    expect(msgs[3]).toEqual({ role: "assistant", content: null, tool_calls: entry.messages[3]!.tool_calls });
    expect(msgs[5]).toEqual({ role: "assistant", content: "done" });
  });

  test("a bad entry among good ones: the good ones are stored, the bad one is reported by index", async () => {
    const ds = await newDataset();
    const res = await t.request("POST", `/api/v1/datasets/${ds.id}/entries`, {
      body: {
        entries: [
          userAssistant(),
          {
            messages: [
              { role: "user", content: "hi", extra: true },
              { role: "assistant", content: "x" },
            ],
          },
          userAssistant(),
          { messages: [{ role: "wizard", content: "hi" }] },
          { messages: [{ role: "user", content: "no answer" }] },
          {
            messages: [
              { role: "tool", content: "x" },
              { role: "assistant", content: "y" },
            ],
          },
          { ...userAssistant(), tool_choice: "sometimes" },
          { ...userAssistant(), split: "VALIDATION" },
          { ...userAssistant(), unknown_member: 1 },
        ],
      },
    });
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body.entries_created).toBe(2);
    expect(body.errors.data.map((e: any) => e.entry_index)).toEqual([1, 3, 4, 5, 6, 7, 8]);
    for (const e of body.errors.data) {
      expect(e.object).toBe("dataset.entries.creation.error");
      expect(e.message.length).toBeGreaterThan(0);
    }
    expect(body.errors.data[0].message).toContain("extra");
    expect(body.errors.data[2].message).toContain("assistant");
    expect(body.errors.data[3].message).toContain("tool_call_id");
    const listed = await json(await t.request("GET", "/api/v1/datasets"));
    expect(listed.data.find((d: any) => d.id === ds.id).dataset_entry_count).toBe(2);
  });

  test("entries without a split get 20% TEST at random; given splits are kept", async () => {
    const ds = await newDataset();
    const entries = Array.from({ length: 100 }, (_, i) => userAssistant(`q${i}`, `a${i}`));
    const res = await json(await t.request("POST", `/api/v1/datasets/${ds.id}/entries`, { body: { entries } }));
    expect(res.entries_created).toBe(100);
    const rows = await t.deps.database.db.query.datasetEntries.findMany({ where: { datasetId: ds.id } });
    expect(rows.filter((r) => r.split === "TEST")).toHaveLength(20);

    const ds2 = await newDataset();
    const fixed = Array.from({ length: 10 }, () => ({ ...userAssistant(), split: "TRAIN" }));
    const added = await json(await t.request("POST", `/api/v1/datasets/${ds2.id}/entries`, { body: { entries: fixed } }));
    expect(added.entries_created).toBe(10);
    const rows2 = await t.deps.database.db.query.datasetEntries.findMany({ where: { datasetId: ds2.id } });
    expect(rows2).toHaveLength(10);
    expect(rows2.map((r) => r.split)).toEqual(Array(10).fill("TRAIN"));
  });

  test("0 and 101 entries are rejected whole with 400 and nothing is stored", async () => {
    const ds = await newDataset();
    for (const n of [0, 101]) {
      const res = await t.request("POST", `/api/v1/datasets/${ds.id}/entries`, {
        body: { entries: Array.from({ length: n }, () => userAssistant()) },
      });
      expect(res.status).toBe(400);
      const body = await json(res);
      expect(body.message).toBe("Input validation failed");
      expect(body.code).toBe("VALIDATION");
      expect(body.issues[0].message).toContain(n === 0 ? "at least 1" : "at most 100");
    }
    const listed = await json(await t.request("GET", "/api/v1/datasets"));
    expect(listed.data.find((d: any) => d.id === ds.id).dataset_entry_count).toBe(0);
  });

  test("non-string metadata values reject the request with 400, like the reference SDK tests expect", async () => {
    const ds = await newDataset();
    const res = await t.request("POST", `/api/v1/datasets/${ds.id}/entries`, {
      body: { entries: [{ ...userAssistant(), metadata: { n: 1 } }] },
    });
    expect(res.status).toBe(400);
    const body = await json(res);
    expect(body.message).toBe("Input validation failed");
    expect(body.issues[0].message).toContain("entries.0.metadata.n");
  });

  test("malformed JSON, wrong types and a missing body get 400 in the error envelope", async () => {
    const bad = await t.request("POST", "/api/v1/datasets", { body: '{"name": "x"' });
    expect(bad.status).toBe(400);
    expect(await json(bad)).toMatchObject({ code: "VALIDATION", message: "Malformed JSON in request body" });

    for (const body of [{ name: 5 }, { name: "" }, {}, [1, 2], "null"]) {
      const res = await t.request("POST", "/api/v1/datasets", { body });
      expect(res.status).toBe(400);
      const b = await json(res);
      expect(b.message).toBe("Input validation failed");
      expect(Array.isArray(b.issues)).toBe(true);
      expect(b.issues.length).toBeGreaterThan(0);
    }
    const empty = await t.request("POST", "/api/v1/datasets", {});
    expect(empty.status).toBe(400);

    const ds = await newDataset();
    const entriesNotArray = await t.request("POST", `/api/v1/datasets/${ds.id}/entries`, { body: { entries: "x" } });
    expect(entriesNotArray.status).toBe(400);
    const malformed = await t.request("POST", `/api/v1/datasets/${ds.id}/entries`, { body: "{entries" });
    expect(malformed.status).toBe(400);
  });

  test("unknown datasets are 404", async () => {
    const del = await t.request("DELETE", "/api/v1/datasets/ds_doesnotexist");
    expect(del.status).toBe(404);
    expect(await json(del)).toEqual({ message: "Dataset ds_doesnotexist not found", code: "NOT_FOUND", issues: [] });
    const add = await t.request("POST", "/api/v1/datasets/ds_doesnotexist/entries", { body: { entries: [userAssistant()] } });
    expect(add.status).toBe(404);
  });

  test("another project's dataset is invisible: 404, never listed, untouched", async () => {
    const other = await t.createProject("other");
    const theirs = await newDataset("theirs", other.apiKey);
    await t.request("POST", `/api/v1/datasets/${theirs.id}/entries`, { key: other.apiKey, body: { entries: [userAssistant()] } });

    const mine = await json(await t.request("GET", "/api/v1/datasets"));
    expect(mine.data.some((d: any) => d.id === theirs.id)).toBe(false);
    expect((await t.request("DELETE", `/api/v1/datasets/${theirs.id}`)).status).toBe(404);
    const add = await t.request("POST", `/api/v1/datasets/${theirs.id}/entries`, { body: { entries: [userAssistant()] } });
    expect(add.status).toBe(404);

    const theirList = await json(await t.request("GET", "/api/v1/datasets", { key: other.apiKey }));
    expect(theirList.data).toHaveLength(1);
    expect(theirList.data[0]).toMatchObject({ id: theirs.id, dataset_entry_count: 1 });
  });

  test("missing, malformed and wrong keys get 401 on every route", async () => {
    const ds = await newDataset();
    const routes: [string, string, unknown?][] = [
      ["GET", "/api/v1/datasets"],
      ["POST", "/api/v1/datasets", { name: "x" }],
      ["DELETE", `/api/v1/datasets/${ds.id}`],
      ["POST", `/api/v1/datasets/${ds.id}/entries`, { entries: [userAssistant()] }],
    ];
    for (const [method, path, body] of routes) {
      const missing = await t.request(method, path, { body, key: null });
      expect(missing.status).toBe(401);
      expect(await json(missing)).toMatchObject({ code: "UNAUTHORIZED", issues: [] });
      const wrong = await t.request(method, path, { body, key: "hone_sk_0000000000000000000000000000000000000000" });
      expect(wrong.status).toBe(401);
      expect((await json(wrong)).message).toBe("Invalid API key");
      const malformed = await t.request(method, path, { body, key: null, headers: { authorization: "Token abc" } });
      expect(malformed.status).toBe(401);
      expect((await json(malformed)).message).toContain("Malformed Authorization header");
    }
    // Nothing was changed by the rejected calls.
    const listed = await json(await t.request("GET", "/api/v1/datasets"));
    expect(listed.data.find((d: any) => d.id === ds.id).dataset_entry_count).toBe(0);
  });
});
