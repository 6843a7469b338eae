import { afterAll, beforeAll, expect, test } from "bun:test";
import { buildOpenApiDocument } from "../../src/http/rest/openapi";
import { REST_ROUTES } from "../../src/http/rest/routes";
import { createTestApp, type TestApp } from "../helpers/app";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ env: { HONE_TESTING_ROUTES: "true" } });
});
afterAll(() => t.close());

test("GET /api/v1/openapi.json serves the built document, without a key", async () => {
  const res = await t.request("GET", "/api/v1/openapi.json", { key: null });
  expect(res.status).toBe(200);
  expect(await res.json()).toEqual(JSON.parse(JSON.stringify(buildOpenApiDocument())));
});

test("the docs page is self-contained: it loads nothing from another host", async () => {
  const res = await t.request("GET", "/api/v1/docs", { key: null });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toContain("text/html");
  const html = await res.text();
  expect(html).toContain('fetch("./openapi.json")');
  expect(html).not.toMatch(/<(script|link)[^>]+(src|href)=["']https?:/);
});

test("every documented route exists: without a key each answers 401, never a route-not-found 404", async () => {
  for (const r of REST_ROUTES) {
    const path = `/api/v1${r.path.replace(/:\w+/g, "x")}`;
    const res = await t.request(r.method.toUpperCase(), path, { key: null, body: r.method === "get" || r.method === "delete" ? undefined : {} });
    expect({ route: `${r.method} ${r.path}`, status: res.status }).toEqual({ route: `${r.method} ${r.path}`, status: 401 });
  }
});
