import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connect } from "node:net";
import { createTestApp, serve, type TestApp } from "../helpers/app";

// A container or Kubernetes service on port 80 is reached as `http://api/...`: the request URL's
// origin is then shorter than the router's usual assumption, and every route must still answer.
const SHORT_HOSTS = ["a", "api", "llm", "x:80", "a:1"];

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
  for (const name of ["first", "second"]) expect((await t.request("POST", "/api/v1/datasets", { body: { name } })).status).toBe(200);
}, 60_000);
afterAll(async () => {
  await t.close();
});

const auth = () => ({ authorization: `Bearer ${t.project.apiKey}` });

describe("app.handle with a short host in the URL", () => {
  for (const host of SHORT_HOSTS) {
    for (const scheme of ["http", "https"]) {
      test(`${scheme}://${host}: /health, a REST list with its query, a REST body, GraphQL, tRPC and a 404`, async () => {
        const base = `${scheme}://${host}`;
        const health = await t.app.handle(new Request(`${base}/health`, { headers: { host } }));
        expect(health.status).toBe(200);
        expect(((await health.json()) as { status: string }).status).toBe("ok");

        const list = await t.app.handle(new Request(`${base}/api/v1/datasets?limit=1`, { headers: { host, ...auth() } }));
        expect(list.status).toBe(200);
        const page = (await list.json()) as { data: unknown[]; has_more: boolean };
        expect(page.data).toHaveLength(1);
        expect(page.has_more).toBe(true);

        const created = await t.app.handle(
          new Request(`${base}/api/v1/datasets`, {
            method: "POST",
            headers: { host, "content-type": "application/json", ...auth() },
            body: JSON.stringify({ name: `via ${host}` }),
          }),
        );
        expect(created.status).toBe(200);
        expect(((await created.json()) as { name: string }).name).toBe(`via ${host}`);

        const gql = await t.app.handle(
          new Request(`${base}/graphql`, {
            method: "POST",
            headers: { host, "content-type": "application/json", ...auth() },
            body: JSON.stringify({ query: "{ datasets { id } }" }),
          }),
        );
        expect(gql.status).toBe(200);
        expect(((await gql.json()) as { errors?: unknown }).errors).toBeUndefined();
        expect((await t.app.handle(new Request(`${base}/trpc/apiKeys.list`, { headers: { host, ...auth() } }))).status).toBe(200);

        // Without a key the route is found and refuses; an unknown path names itself.
        expect((await t.app.handle(new Request(`${base}/api/v1/datasets`))).status).toBe(401);
        const missing = await t.app.handle(new Request(`${base}/api/v1/nothing-here`, { headers: auth() }));
        expect(missing.status).toBe(404);
        expect(((await missing.json()) as { message: string }).message).toBe("Not found: /api/v1/nothing-here");
      });
    }
  }
});

/** One raw HTTP/1.1 exchange, so the Host header is exactly what a client in a cluster sends. */
function rawRequest(port: number, lines: string[], body = ""): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let received = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk) => {
      received += chunk;
    });
    socket.on("error", reject);
    socket.on("close", () => resolve({ status: Number(received.slice(9, 12)), text: received }));
    socket.write(`${[...lines, "Connection: close", `Content-Length: ${Buffer.byteLength(body)}`, "", ""].join("\r\n")}${body}`);
  });
}

describe("over a real socket with a short Host header", () => {
  test("/health, an authenticated REST list and a REST body answer for every short Host", async () => {
    const server = serve(t.app);
    const port = Number(new URL(server.url).port);
    try {
      for (const host of SHORT_HOSTS) {
        const health = await rawRequest(port, ["GET /health HTTP/1.1", `Host: ${host}`]);
        expect(`${host} ${health.status}`).toBe(`${host} 200`);
        expect(health.text).toContain('"status":"ok"');

        const list = await rawRequest(port, ["GET /api/v1/datasets?limit=1 HTTP/1.1", `Host: ${host}`, `Authorization: Bearer ${t.project.apiKey}`]);
        expect(`${host} ${list.status}`).toBe(`${host} 200`);
        expect(list.text).toContain('"has_more":true');

        const body = JSON.stringify({ name: `raw ${host}` });
        const created = await rawRequest(
          port,
          ["POST /api/v1/datasets HTTP/1.1", `Host: ${host}`, `Authorization: Bearer ${t.project.apiKey}`, "Content-Type: application/json"],
          body,
        );
        expect(`${host} ${created.status}`).toBe(`${host} 200`);
        expect(created.text).toContain(`"name":"raw ${host}"`);
      }
    } finally {
      await server.stop();
    }
  });
});
