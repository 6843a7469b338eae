import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { z } from "zod";
import { bodyLimitOf, restApi } from "../../src/http/rest/mount";
import { buildOpenApiDocument } from "../../src/http/rest/openapi";
import { route } from "../../src/http/rest/route";
import { createTestApp, type TestApp } from "../helpers/app";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const Thing = z.object({ a: z.number() });
const answering = (path: string, value: unknown) =>
  route({ method: "get", path, summary: path, tag: "Test", auth: "public", response: { schema: Thing }, errors: [], handler: async () => value });
const routes = [
  answering("/ok", { a: 1 }),
  answering("/mistyped", { a: "one" }),
  answering("/undeclared", { a: 1, b: 2 }),
  route({
    method: "get",
    path: "/rows",
    summary: "rows",
    tag: "Test",
    auth: "public",
    response: { schema: Thing, contentType: "application/x-ndjson" },
    errors: [],
    handler: async () => new Response('{"a":1}\n{"a":"two"}\n', { headers: { "content-type": "application/x-ndjson" } }),
  }),
  route({
    method: "get",
    path: "/things/:thingId",
    summary: "echo",
    tag: "Test",
    auth: "public",
    query: { color: { schema: z.string(), description: "a colour" } },
    response: { schema: z.object({ id: z.string(), color: z.string().optional() }) },
    errors: [],
    handler: async ({ params, query }) => ({ id: params.thingId, color: query.color }),
  }),
];
const get = (app: ReturnType<typeof restApi>, path: string) => app.handle(new Request(`http://localhost/api/v1${path}`));

describe("response checking (tests only)", () => {
  test("an answer that matches its declared schema goes through untouched", async () => {
    const res = await get(restApi(t.deps, { checkResponses: true }, routes), "/ok");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ a: 1 });
  });

  test("a mistyped or undeclared member fails the request with a 500 naming it", async () => {
    const app = restApi(t.deps, { checkResponses: true }, routes);
    const mistyped = await get(app, "/mistyped");
    expect(mistyped.status).toBe(500);
    const body = (await mistyped.json()) as { message: string; issues: { path: unknown[] }[] };
    expect(body.message).toContain("GET /mistyped does not match its declared schema");
    expect(body.issues[0]!.path).toEqual(["a"]);
    const undeclared = await get(app, "/undeclared");
    expect(undeclared.status).toBe(500);
    expect(((await undeclared.json()) as { message: string }).message).toContain('undeclared member "b"');
  });

  test("a JSONL row off its schema breaks the stream", async () => {
    const res = await get(restApi(t.deps, { checkResponses: true }, routes), "/rows");
    expect(res.status).toBe(200);
    expect(await res.text().catch((e: Error) => e.message)).toContain("line 2");
  });

  test("off (production), answers are not checked", async () => {
    const app = restApi(t.deps, {}, routes);
    expect(await (await get(app, "/mistyped")).json()).toEqual({ a: "one" });
    expect(await (await get(app, "/rows")).text()).toBe('{"a":1}\n{"a":"two"}\n');
  });
});

describe("the route table", () => {
  test("path parameters and declared query parameters reach the handler", async () => {
    const res = await get(restApi(t.deps, { checkResponses: true }, routes), "/things/t_1?color=red");
    expect(await res.json()).toEqual({ id: "t_1", color: "red" });
  });

  test("the document shows Elysia's :param as {param} and public routes need no key", () => {
    const doc = buildOpenApiDocument(routes) as { paths: Record<string, { get: { parameters?: { name: string; in: string }[]; security?: unknown[] } }> };
    const op = doc.paths["/things/{thingId}"]!.get;
    expect(op.parameters!.map((p) => `${p.in} ${p.name}`)).toEqual(["path thingId", "query color"]);
    expect(op.security).toEqual([]);
  });

  test("dataset import has its own body limit, declared on its route", () => {
    const limit = bodyLimitOf({ ...t.deps.config, maxBodyBytes: 100, maxImportBytes: 5000 });
    expect(limit("/api/v1/datasets/ds_1/import")).toBe(5000);
    expect(limit("/api/v1/datasets/ds_1/entries")).toBe(100);
    expect(limit("/api/v1/chat/completions")).toBe(100);
  });
});
