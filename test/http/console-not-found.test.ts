import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../helpers/app";

// A browser that asks for a page the console does not have gets an HTML page, 404, that says so
// and links to the logs; API clients (and API paths, whatever the client accepts) keep JSON.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
}, 60_000);
afterAll(async () => {
  await t.close();
});

const BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";
const get = (path: string, accept = BROWSER_ACCEPT, method = "GET") => t.app.handle(new Request(`http://localhost${path}`, { method, headers: { accept } }));

describe("the not-found page", () => {
  test("unknown paths, and wrong paths under a section, answer an HTML 404 that links to /logs", async () => {
    for (const path of ["/nonsense", "/logs/x/y", "/settings/extra", "/playground/1", "/criteria/crit_1/more", "/evaluations/a/b/c", "/favicon.php"]) {
      const res = await get(path);
      expect(res.status).toBe(404);
      expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(res.headers.get("x-frame-options")).toBe("DENY");
      const csp = res.headers.get("content-security-policy") ?? "";
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("frame-ancestors 'none'");
      const html = await res.text();
      expect(html).toContain("This page does not exist");
      expect(html).toContain('<a href="/logs">Go to the logs</a>');
      expect(html).toContain(`<code>${path}</code>`);
      expect(html).not.toContain('<div id="root">');
    }
  }, 30_000);

  test("the path is shown escaped, never as markup", async () => {
    const res = await get(`/${encodeURIComponent('<img src=x onerror="alert(1)">')}`);
    expect(res.status).toBe(404);
    const html = await res.text();
    expect(html).not.toContain("<img");
    expect(html).toContain("&#60;img");
  });

  test("HEAD gets the 404 too", async () => {
    expect((await get("/nonsense", BROWSER_ACCEPT, "HEAD")).status).toBe(404);
  });

  test("the console's own pages still answer the console", async () => {
    for (const path of [
      "/",
      "/logs",
      "/logs/",
      "/logs/log_1",
      "/datasets/ds_1",
      "/models/my-slug",
      "/criteria/crit_1",
      "/evaluations/eval_1",
      "/playground",
      "/settings",
      "/usage",
    ]) {
      const res = await get(path);
      expect(res.status).toBe(200);
      expect(await res.text()).toContain('<div id="root">');
    }
  }, 30_000);

  test("API clients and API paths keep their JSON 404s", async () => {
    for (const [path, accept] of [
      ["/nonsense", "application/json"],
      ["/nonsense", "*/*"],
      ["/logs/x/y", "application/json"],
      ["/api/v1/nonsense", BROWSER_ACCEPT],
      ["/api/v1/datasets/ds_nope/x/y", BROWSER_ACCEPT],
      ["/trpc/nonsense.query", BROWSER_ACCEPT],
      ["/graphql/x", BROWSER_ACCEPT],
    ] as const) {
      const res = await get(path, accept);
      expect(res.status).toBe(404);
      expect(res.headers.get("content-type") ?? "").toContain("json");
    }
    // A missing asset of the console is a plain 404, not a page.
    const asset = await get("/console/assets/nope.js");
    expect(asset.status).toBe(404);
    expect(asset.headers.get("content-type")).not.toContain("html");
  });
});
