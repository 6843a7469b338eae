import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../helpers/app";

// Every answer carries nosniff; the HTML pages (GraphiQL, the REST docs) carry a policy that lets
// only their own inline scripts run, and that no other site may frame.
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
}, 60_000);
afterAll(async () => {
  await t.close();
});

const html = { accept: "text/html" };

/** The page's inline scripts (or styles), hashed as a browser hashes them for CSP. */
function hashesOf(page: string, tag: "script" | "style"): string[] {
  const re = new RegExp(`<${tag}(\\s[^>]*)?>([\\s\\S]*?)</${tag}>`, "gi");
  return [...page.matchAll(re)]
    .filter((m) => !/\bsrc=/.test(m[1] ?? ""))
    .map((m) => `'sha256-${new Bun.CryptoHasher("sha256").update(m[2]!).digest("base64")}'`);
}

/** A CSP's directives by name, each with its sources. */
function directives(csp: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const d of csp.split(";")) {
    const [name, ...sources] = d.trim().split(/\s+/);
    if (name) out.set(name, sources);
  }
  return out;
}

describe("X-Content-Type-Options: nosniff on every answer", () => {
  test("REST, the gateway's errors, /health, GraphQL, tRPC, a 404", async () => {
    const answers: [string, Response, number][] = [
      ["REST", await t.request("GET", "/api/v1/datasets"), 200],
      ["gateway error", await t.request("POST", "/api/v1/chat/completions", { body: { messages: "not a list" } }), 400],
      ["gateway 401", await t.request("POST", "/api/v1/chat/completions", { body: {}, key: "hone_sk_nope" }), 401],
      ["health", await t.request("GET", "/health", { key: null }), 200],
      ["graphql", await t.request("POST", "/graphql", { body: { query: "{ __typename }" } }), 200],
      ["trpc", await t.request("GET", "/trpc/datasets.list"), 200],
      ["404", await t.request("GET", "/api/v1/no-such-route"), 404],
      ["404 outside the API", await t.request("GET", "/nothing-here", { key: null }), 404],
    ];
    for (const [what, res, status] of answers) {
      expect({ what, status: res.status }).toEqual({ what, status });
      expect({ what, nosniff: res.headers.get("x-content-type-options") }).toEqual({ what, nosniff: "nosniff" });
      expect(res.headers.get("x-request-id")).toBeTruthy();
      await res.arrayBuffer();
    }
  });
});

describe("the HTML pages' policies", () => {
  const common = (res: Response) => {
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/html");
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    expect(res.headers.get("referrer-policy")).toBe("same-origin");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    const csp = directives(res.headers.get("content-security-policy") ?? "");
    expect(csp.get("frame-ancestors")).toEqual(["'none'"]);
    expect(csp.get("base-uri")).toEqual(["'none'"]);
    expect(csp.get("object-src")).toEqual(["'none'"]);
    expect(csp.get("default-src")).toEqual(["'none'"]);
    // Nothing that would let an injected script run.
    expect(csp.get("script-src")).not.toContain("'unsafe-inline'");
    expect(csp.get("script-src")).not.toContain("'unsafe-eval'");
    return csp;
  };

  test("GraphiQL: its inline script allowed by hash, the same policy on every view", async () => {
    const first = await t.request("GET", "/graphql", { key: null, headers: html });
    const csp = common(first);
    const page = await first.text();
    const scripts = hashesOf(page, "script");
    expect(scripts.length).toBe(1);
    expect(csp.get("script-src")).toEqual(scripts);
    // Monaco styles elements at run time: inline styles, and no hash (a hash would switch them off).
    expect(csp.get("style-src")).toEqual(["'unsafe-inline'"]);
    expect(csp.get("worker-src")).toEqual(["blob:"]);
    expect(csp.get("connect-src")).toEqual(["'self'"]);

    const again = await t.request("GET", "/graphql", { key: null, headers: html });
    expect(again.headers.get("content-security-policy")).toBe(first.headers.get("content-security-policy"));
    expect(hashesOf(await again.text(), "script")).toEqual(scripts);
  }, 30_000);

  test("the REST docs page: its inline script and style allowed by hash, a fetch of openapi.json", async () => {
    const res = await t.request("GET", "/api/v1/docs", { key: null });
    const csp = common(res);
    const page = await res.text();
    expect(csp.get("script-src")).toEqual(hashesOf(page, "script"));
    expect(csp.get("style-src")).toEqual(hashesOf(page, "style"));
    expect(hashesOf(page, "script").length).toBe(1);
    expect(csp.get("connect-src")).toEqual(["'self'"]);
  });

  test("the console's page has the same baseline", async () => {
    const res = await t.request("GET", "/", { key: null });
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    const csp = directives(res.headers.get("content-security-policy") ?? "");
    expect(csp.get("frame-ancestors")).toEqual(["'none'"]);
    expect(csp.get("object-src")).toEqual(["'none'"]);
    expect(csp.get("script-src")).toEqual(["'self'"]);
    await res.arrayBuffer();
  }, 30_000);
});
