import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../helpers/app";
import { codeOf, consoleClient, trpcClient } from "../helpers/trpc";

const ADMIN = "admin-token-for-console-tests-0123456789";
let t: TestApp;
/**
 * How far the app's clock runs ahead of real time: the expiry tests move it on by hand instead of
 * sleeping through the session limits (every session time is read from deps.clock).
 */
let ahead = 0;

beforeAll(async () => {
  t = await createTestApp({
    env: { HONE_ADMIN_TOKEN: ADMIN, HONE_SESSION_IDLE_MS: "1500", HONE_API_KEY_CACHE_MS: "0" },
    deps: { clock: () => new Date(Date.now() + ahead) },
  });
}, 60_000);
afterAll(async () => {
  await t.close();
});

/** A browser-like client: keeps the cookie it is given, sends the console header unless told not to. */
const browser = (opts: { consoleHeader?: boolean } = {}) => consoleClient(t, opts);

describe("console sessions", () => {
  test("an API key is exchanged for an HttpOnly, SameSite=Strict cookie that reads the project's data", async () => {
    const b = browser();
    const me = await b.client.session.signIn.mutate({ token: t.project.apiKey });
    expect(me.admin).toBe(false);
    expect(me.project?.id).toBe(t.project.projectId);
    expect(me.key?.prefix).toEndWith(t.project.apiKey.slice(-4));
    const set = b.jar.setCookies[0]!;
    expect(set).toMatch(/^hone_session=hone_ses_[0-9A-Za-z]+;/);
    expect(set).toContain("HttpOnly");
    expect(set).toContain("SameSite=Strict");
    expect(set).not.toContain("Secure");
    expect(set).not.toContain(t.project.apiKey);
    expect((await b.client.session.me.query())?.project?.id).toBe(t.project.projectId);
    expect(Array.isArray((await b.client.logs.list.query({})).logs)).toBe(true);
  });

  test("a bad key is refused with the API's message and no cookie", async () => {
    const b = browser();
    let message = "";
    try {
      await b.client.session.signIn.mutate({ token: "hone_sk_nope" });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toContain("Invalid API key");
    expect(b.jar.setCookies).toEqual([]);
    expect(await codeOf(b.client.session.signIn.mutate({ token: "" }))).toBe("VALIDATION");
  });

  test("without the console header the cookie does not act (cross-site forms cannot send it)", async () => {
    const b = browser();
    await b.client.session.signIn.mutate({ token: t.project.apiKey });
    const cookie = b.jar.cookie!;
    const res = await t.app.handle(new Request("http://localhost/trpc/logs.list?input=%7B%7D", { headers: { cookie } }));
    expect(res.status).toBe(403);
    expect(JSON.stringify(await res.json())).toContain("x-hone-console");
    const signIn = await t.app.handle(
      new Request("http://localhost/trpc/session.signIn", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ token: t.project.apiKey }),
      }),
    );
    expect(signIn.status).toBe(403);
  });

  test("REST and GraphQL take the cookie only with the console header", async () => {
    const b = browser();
    await b.client.session.signIn.mutate({ token: t.project.apiKey });
    const res = await t.app.handle(new Request("http://localhost/api/v1/datasets", { headers: { cookie: b.jar.cookie!, "x-hone-console": "1" } }));
    expect(res.status).toBe(200);
    const bare = await t.app.handle(new Request("http://localhost/api/v1/datasets", { headers: { cookie: b.jar.cookie! } }));
    expect(bare.status).toBe(403);
    expect(((await bare.json()) as { message: string }).message).toContain("x-hone-console");
    const gqlBare = await t.app.handle(
      new Request("http://localhost/graphql", {
        method: "POST",
        headers: { cookie: b.jar.cookie!, "content-type": "application/json" },
        body: '{"query":"{ datasets { id } }"}',
      }),
    );
    expect(gqlBare.status).toBe(403);
  });

  test("sign-out ends the session for every holder of the cookie", async () => {
    const b = browser();
    await b.client.session.signIn.mutate({ token: t.project.apiKey });
    const stolen = b.jar.cookie!;
    await b.client.session.signOut.mutate();
    expect(b.jar.setCookies.at(-1)).toContain("Max-Age=0");
    const res = await t.app.handle(new Request("http://localhost/trpc/session.me", { headers: { cookie: stolen, "x-hone-console": "1" } }));
    expect(res.status).toBe(401);
    expect(JSON.stringify(await res.json())).toContain("sign in again");
  });

  test("an idle session expires; an active one slides", async () => {
    const b = browser();
    await b.client.session.signIn.mutate({ token: t.project.apiKey });
    for (let i = 0; i < 4; i++) {
      ahead += 600;
      expect(await codeOf(b.client.session.me.query())).toBe("OK");
    }
    ahead += 1700;
    expect(await codeOf(b.client.session.me.query())).toBe("UNAUTHORIZED");
    expect(await codeOf(b.client.logs.list.query({}))).toBe("UNAUTHORIZED");
  });

  test("revoking the key ends its sessions at once", async () => {
    const created = await trpcClient(t).apiKeys.create.mutate({ name: "alice" });
    const b = browser();
    const me = await b.client.session.signIn.mutate({ token: created.apiKey });
    expect(me.key?.name).toBe("alice");
    await trpcClient(t).apiKeys.revoke.mutate({ id: created.key.id });
    expect(await codeOf(b.client.session.me.query())).toBe("UNAUTHORIZED");
    expect(await codeOf(b.client.session.signIn.mutate({ token: created.apiKey }))).toBe("UNAUTHORIZED");
  });

  test("an admin session lists, creates and switches projects; a key session cannot switch", async () => {
    const other = await t.createProject("second");
    const admin = browser();
    const me = await admin.client.session.signIn.mutate({ token: ADMIN });
    expect(me.admin).toBe(true);
    expect(me.key).toBeNull();
    const projects = await admin.client.admin.listProjects.query();
    expect(projects.map((p) => p.id)).toContain(other.projectId);
    const created = await admin.client.admin.createProject.mutate({ name: "made in the console" });
    const switched = await admin.client.session.switchProject.mutate({ projectId: created.projectId });
    expect(switched.project?.name).toBe("made in the console");
    expect((await admin.client.session.me.query())?.project?.id).toBe(created.projectId);
    expect(await codeOf(admin.client.session.switchProject.mutate({ projectId: "prj_nope" }))).toBe("NOT_FOUND");

    const user = browser();
    await user.client.session.signIn.mutate({ token: t.project.apiKey });
    expect(await codeOf(user.client.session.switchProject.mutate({ projectId: other.projectId }))).toBe("FORBIDDEN");
    expect(await codeOf(user.client.admin.listProjects.query())).toBe("UNAUTHORIZED");
  });

  test("a session sees only its own project's data", async () => {
    const other = await t.createProject("isolated");
    await t.request("POST", "/api/v1/datasets", { body: { name: "mine-only" } });
    const b = browser();
    await b.client.session.signIn.mutate({ token: other.apiKey });
    const list = await b.client.datasets.list.query();
    expect(JSON.stringify(list)).not.toContain("mine-only");
  });
});

describe("long query inputs", () => {
  test("a query may come as a POST, so a selection of 1,000 log ids never meets a URL limit", async () => {
    const ids = Array.from({ length: 1000 }, (_, i) => `log_${i.toString(16).padStart(32, "0")}`);
    const res = await t.app.handle(
      new Request("http://localhost/trpc/logs.count", {
        method: "POST",
        headers: { authorization: `Bearer ${t.project.apiKey}`, "content-type": "application/json" },
        body: JSON.stringify({ filter: { ids } }),
      }),
    );
    expect(res.status).toBe(200);
    expect((await res.json()).result.data).toEqual({ count: 0, exact: true });
  });
});

describe("absolute expiry", () => {
  test("a session ends HONE_SESSION_MAX_MS after sign-in however active it is", async () => {
    let shortAhead = 0;
    const short = await createTestApp({
      env: { HONE_SESSION_MAX_MS: "1200", HONE_SESSION_IDLE_MS: "60000" },
      deps: { clock: () => new Date(Date.now() + shortAhead) },
    });
    try {
      let cookie = "";
      const call = async (path: string, init: RequestInit = {}) => {
        const res = await short.app.handle(
          new Request(`http://localhost/trpc/${path}`, { ...init, headers: { "content-type": "application/json", "x-hone-console": "1", cookie } }),
        );
        const set = res.headers.getSetCookie()[0];
        if (set) cookie = set.split(";")[0]!;
        return res;
      };
      const signIn = await call("session.signIn", { method: "POST", body: JSON.stringify({ token: short.project.apiKey }) });
      expect(signIn.status).toBe(200);
      for (let i = 0; i < 3; i++) {
        expect((await call("session.me")).status).toBe(200);
        shortAhead += 300;
      }
      shortAhead += 500;
      expect((await call("session.me")).status).toBe(401);
    } finally {
      await short.close();
    }
  });
});
