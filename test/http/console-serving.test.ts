import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../helpers/app";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
}, 60_000);
afterAll(async () => {
  await t.close();
});

const get = (path: string, headers: Record<string, string> = {}) => t.app.handle(new Request(`http://localhost${path}`, { headers }));

describe("the console is served by Hone itself", () => {
  test("/ and every section's path answer the page, with headers that keep it from being framed", async () => {
    for (const path of ["/", "/logs", "/logs/log_0123", "/usage", "/settings", "/datasets"]) {
      const res = await get(path);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toContain("text/html");
      expect(res.headers.get("x-frame-options")).toBe("DENY");
      expect(res.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
      expect(await res.text()).toContain('<div id="root">');
    }
  }, 30_000);

  test("its scripts are minified, hashed, cached for good and gzipped for clients that accept it", async () => {
    const html = await (await get("/")).text();
    const script = /src="(\/console\/assets\/main-[\w-]+\.js)"/.exec(html)![1]!;
    const css = /href="(\/console\/assets\/[\w-]+\.css)"/.exec(html)![1]!;
    const plain = await get(script);
    expect(plain.status).toBe(200);
    expect(plain.headers.get("cache-control")).toContain("immutable");
    expect(plain.headers.get("content-encoding")).toBeNull();
    const body = await plain.text();
    expect(body.length).toBeGreaterThan(1000);
    const gz = await get(script, { "accept-encoding": "gzip, br" });
    expect(gz.headers.get("content-encoding")).toBe("gzip");
    expect(new TextDecoder().decode(Bun.gunzipSync(new Uint8Array(await gz.arrayBuffer())))).toBe(body);
    expect((await get(css)).headers.get("content-type")).toContain("text/css");
    expect((await get("/console/assets/nope.js")).status).toBe(404);
  });

  test("a page's HTML preloads that page's chunks alongside the shell, and every one is served", async () => {
    const preloads = async (path: string) => {
      const html = await (await get(path)).text();
      return [...html.matchAll(/<link rel="modulepreload" href="([^"]+)">/g)].map((m) => m[1]!);
    };
    // Which page components the preloaded chunks export (the router imports each by its name).
    const pagesIn = async (hrefs: string[]) => {
      const names = new Set<string>();
      for (const href of hrefs) {
        expect(href).not.toMatch(/\/main-/);
        const res = await get(href);
        expect(res.status).toBe(200);
        expect(res.headers.get("content-type")).toContain("javascript");
        for (const clause of (await res.text()).matchAll(/export\s*\{([^}]*)\}/g)) {
          for (const part of clause[1]!.split(",")) {
            const name = part
              .trim()
              .split(/\s+as\s+/)
              .pop()!;
            if (/Page$|^LogDetail$/.test(name)) names.add(name);
          }
        }
      }
      return [...names].sort();
    };
    const logs = await preloads("/logs");
    expect(await pagesIn(logs)).toEqual(["LogsPage"]);
    // "/" goes on to the logs; a log's own path also needs its drawer.
    expect(await preloads("/")).toEqual(logs);
    const detail = await preloads("/logs/log_0123");
    expect(detail).toEqual(expect.arrayContaining(logs));
    expect(await pagesIn(detail)).toEqual(["LogDetail", "LogsPage"]);
    expect(await pagesIn(await preloads("/usage"))).toEqual(["UsagePage"]);
    expect(await pagesIn(await preloads("/datasets/ds_1"))).toEqual(["DatasetPage"]);
    expect(await pagesIn(await preloads("/datasets"))).toEqual(["DatasetsPage"]);
  }, 30_000);

  test("the API keeps its paths and its JSON errors", async () => {
    expect((await get("/health")).status).toBe(200);
    const unknown = await get("/not-a-page");
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).code).toBe("NOT_FOUND");
    const post = await t.app.handle(new Request("http://localhost/logs", { method: "POST" }));
    expect(post.status).toBe(404);
  });
});
