import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { z } from "zod";
import type { DatasetEntryInput } from "../../src/domain/datasets";
import { createTestApp, userAssistant, type TestApp } from "../helpers/app";
import { rest, type Rest } from "../helpers/rest";

let t: TestApp;
let api: Rest;
beforeAll(async () => {
  t = await createTestApp();
  api = rest(t);
});
afterAll(() => t.close());

const newDataset = (name = "ds", key?: string) => api.ok("POST /datasets", { body: { name }, key });

describe("REST datasets", () => {
  test("create, list, add entries, counts and delete", async () => {
    const created = await newDataset("support-bot");
    expect(created).toMatchObject({ object: "dataset", name: "support-bot", dataset_entry_count: 0, fine_tune_count: 0 });
    expect(created.id).toMatch(/^ds_[0-9a-f]{32}$/);
    expect(new Date(created.created).toISOString()).toBe(created.created);
    expect(new Date(created.updated).toISOString()).toBe(created.updated);

    const add = await api.ok("POST /datasets/:datasetId/entries", {
      params: { datasetId: created.id },
      body: { entries: [userAssistant("a", "1"), userAssistant("b", "2"), userAssistant("c", "3")] },
    });
    expect(add).toEqual({
      object: "dataset.entries.creation",
      entries_created: 3,
      errors: { object: "list", data: [] },
    });

    const list = await api.ok("GET /datasets");
    expect(list.object).toBe("list");
    const row = list.data.find((d) => d.id === created.id);
    expect(row).toMatchObject({ object: "dataset", dataset_entry_count: 3, fine_tune_count: 0 });
    expect(row!.updated >= created.updated).toBe(true);

    const del = await api.ok("DELETE /datasets/:datasetId", { params: { datasetId: created.id } });
    expect(del).toEqual({ id: created.id, object: "dataset", deleted: true });
    const after = await api.ok("GET /datasets");
    expect(after.data.some((d) => d.id === created.id)).toBe(false);
    // Its entries went with it.
    const rows = await t.deps.database.db.query.datasetEntries.findMany({ where: { datasetId: created.id } });
    expect(rows).toHaveLength(0);
    // Deleting again: gone.
    expect((await api.fail("DELETE /datasets/:datasetId", { params: { datasetId: created.id } })).status).toBe(404);
  });

  test("entries keep what was sent, with the spec's defaults filled in", async () => {
    const ds = await newDataset();
    const toolCalls = [{ id: "call_1", type: "function" as const, function: { name: "lookup", arguments: "{}" } }];
    const entry: z.input<typeof DatasetEntryInput> = {
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
        { role: "assistant", tool_calls: toolCalls },
        { role: "tool", tool_call_id: "call_1", content: "found" },
        { role: "assistant", content: "done" },
      ],
      tools: [{ type: "function", function: { name: "lookup", parameters: { type: "object" }, description: "d", strict: true } }],
      tool_choice: "none",
      response_format: { type: "text" },
      metadata: { prompt_id: "p1" },
      split: "TEST",
    };
    const res = await api.ok("POST /datasets/:datasetId/entries", { params: { datasetId: ds.id }, body: { entries: [entry] } });
    expect(res.entries_created).toBe(1);
    const [row] = await t.deps.database.db.query.datasetEntries.findMany({ where: { datasetId: ds.id } });
    expect(row!.split).toBe("TEST");
    expect(row!.metadata).toEqual({ prompt_id: "p1" });
    expect(row!.toolChoice).toBe("none");
    expect(row!.responseFormat).toEqual({ type: "text" });
    expect(row!.tools).toEqual(entry.tools!);
    const msgs = row!.messages as unknown[];
    expect(msgs[0]).toEqual({ role: "system", content: "" });
    expect(msgs[3]).toEqual({ role: "assistant", content: null, tool_calls: toolCalls });
    expect(msgs[5]).toEqual({ role: "assistant", content: "done" });
  });

  test("a bad entry among good ones: the good ones are stored, the bad one is reported by index", async () => {
    const ds = await newDataset();
    const body = await api.ok("POST /datasets/:datasetId/entries", {
      params: { datasetId: ds.id },
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
        ] as never,
      },
    });
    expect(body.entries_created).toBe(2);
    expect(body.errors.data.map((e) => e.entry_index)).toEqual([1, 3, 4, 5, 6, 7, 8]);
    for (const e of body.errors.data) {
      expect(e.object).toBe("dataset.entries.creation.error");
      expect(e.message.length).toBeGreaterThan(0);
    }
    expect(body.errors.data[0]!.message).toContain("extra");
    expect(body.errors.data[2]!.message).toContain("assistant");
    expect(body.errors.data[3]!.message).toContain("tool_call_id");
    const listed = await api.ok("GET /datasets");
    expect(listed.data.find((d) => d.id === ds.id)!.dataset_entry_count).toBe(2);
  });

  test("entries without a split get 20% TEST at random; given splits are kept", async () => {
    const ds = await newDataset();
    const entries = Array.from({ length: 100 }, (_, i) => userAssistant(`q${i}`, `a${i}`));
    const res = await api.ok("POST /datasets/:datasetId/entries", { params: { datasetId: ds.id }, body: { entries } });
    expect(res.entries_created).toBe(100);
    const rows = await t.deps.database.db.query.datasetEntries.findMany({ where: { datasetId: ds.id } });
    expect(rows.filter((r) => r.split === "TEST")).toHaveLength(20);

    const ds2 = await newDataset();
    const fixed = Array.from({ length: 10 }, () => ({ ...userAssistant(), split: "TRAIN" as const }));
    const added = await api.ok("POST /datasets/:datasetId/entries", { params: { datasetId: ds2.id }, body: { entries: fixed } });
    expect(added.entries_created).toBe(10);
    const rows2 = await t.deps.database.db.query.datasetEntries.findMany({ where: { datasetId: ds2.id } });
    expect(rows2).toHaveLength(10);
    expect(rows2.map((r) => r.split)).toEqual(Array(10).fill("TRAIN"));
  });

  test("0 and 101 entries are rejected whole with 400 and nothing is stored", async () => {
    const ds = await newDataset();
    for (const n of [0, 101]) {
      const { status, body } = await api.fail("POST /datasets/:datasetId/entries", {
        params: { datasetId: ds.id },
        body: { entries: Array.from({ length: n }, () => userAssistant()) },
      });
      expect(status).toBe(400);
      expect(body.message).toBe("Input validation failed");
      expect(body.code).toBe("VALIDATION");
      expect(body.issues[0]!.message).toContain(n === 0 ? "at least 1" : "at most 100");
    }
    const listed = await api.ok("GET /datasets");
    expect(listed.data.find((d) => d.id === ds.id)!.dataset_entry_count).toBe(0);
  });

  test("non-string metadata values reject the request with 400, like the reference SDK tests expect", async () => {
    const ds = await newDataset();
    const { status, body } = await api.fail("POST /datasets/:datasetId/entries", {
      params: { datasetId: ds.id },
      body: { entries: [{ ...userAssistant(), metadata: { n: 1 } }] },
    });
    expect(status).toBe(400);
    expect(body.message).toBe("Input validation failed");
    expect(body.issues[0]!.message).toContain("entries.0.metadata.n");
  });

  test("malformed JSON, wrong types and a missing body get 400 in the error envelope", async () => {
    const bad = await api.fail("POST /datasets", { body: '{"name": "x"' });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: "VALIDATION", message: "Malformed JSON in request body" });

    for (const body of [{ name: 5 }, { name: "" }, {}, [1, 2], "null"]) {
      const res = await api.fail("POST /datasets", { body });
      expect(res.status).toBe(400);
      expect(res.body.message).toBe("Input validation failed");
      expect(res.body.issues.length).toBeGreaterThan(0);
    }
    expect((await api.fail("POST /datasets")).status).toBe(400);

    const ds = await newDataset();
    const datasetId = ds.id;
    expect((await api.fail("POST /datasets/:datasetId/entries", { params: { datasetId }, body: { entries: "x" } })).status).toBe(400);
    expect((await api.fail("POST /datasets/:datasetId/entries", { params: { datasetId }, body: "{entries" })).status).toBe(400);
  });

  test("unknown datasets are 404", async () => {
    const params = { datasetId: "ds_doesnotexist" };
    const del = await api.fail("DELETE /datasets/:datasetId", { params });
    expect(del.status).toBe(404);
    expect(del.body).toEqual({ message: "Dataset ds_doesnotexist not found", code: "NOT_FOUND", issues: [] });
    expect((await api.fail("POST /datasets/:datasetId/entries", { params, body: { entries: [userAssistant()] } })).status).toBe(404);
  });

  test("another project's dataset is invisible: 404, never listed, untouched", async () => {
    const other = await t.createProject("other");
    const theirs = await newDataset("theirs", other.apiKey);
    const params = { datasetId: theirs.id };
    await api.ok("POST /datasets/:datasetId/entries", { params, key: other.apiKey, body: { entries: [userAssistant()] } });

    const mine = await api.ok("GET /datasets");
    expect(mine.data.some((d) => d.id === theirs.id)).toBe(false);
    expect((await api.fail("DELETE /datasets/:datasetId", { params })).status).toBe(404);
    expect((await api.fail("POST /datasets/:datasetId/entries", { params, body: { entries: [userAssistant()] } })).status).toBe(404);

    const theirList = await api.ok("GET /datasets", { key: other.apiKey });
    expect(theirList.data).toHaveLength(1);
    expect(theirList.data[0]).toMatchObject({ id: theirs.id, dataset_entry_count: 1 });
  });

  test("missing, malformed and wrong keys get 401 on every route", async () => {
    const ds = await newDataset();
    const params = { datasetId: ds.id };
    const calls = [
      (o: { key: string | null; headers?: Record<string, string> }) => api.fail("GET /datasets", o),
      (o: { key: string | null; headers?: Record<string, string> }) => api.fail("POST /datasets", { ...o, body: { name: "x" } }),
      (o: { key: string | null; headers?: Record<string, string> }) => api.fail("DELETE /datasets/:datasetId", { ...o, params }),
      (o: { key: string | null; headers?: Record<string, string> }) =>
        api.fail("POST /datasets/:datasetId/entries", { ...o, params, body: { entries: [userAssistant()] } }),
    ];
    for (const call of calls) {
      const missing = await call({ key: null });
      expect(missing.status).toBe(401);
      expect(missing.body).toMatchObject({ code: "UNAUTHORIZED", issues: [] });
      const wrong = await call({ key: "hone_sk_0000000000000000000000000000000000000000" });
      expect(wrong.status).toBe(401);
      expect(wrong.body.message).toBe("Invalid API key");
      const malformed = await call({ key: null, headers: { authorization: "Token abc" } });
      expect(malformed.status).toBe(401);
      expect(malformed.body.message).toContain("Malformed Authorization header");
    }
    // Nothing was changed by the rejected calls.
    const listed = await api.ok("GET /datasets");
    expect(listed.data.find((d) => d.id === ds.id)!.dataset_entry_count).toBe(0);
  });
});
