import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createApp } from "../../src/app";
import { ConfigError, loadConfig } from "../../src/core/config";
import { createDeps } from "../../src/compose";
import { createSignInThrottle, SIGN_IN_MAX_FAILURES, SIGN_IN_WINDOW_MS } from "../../src/domain/sessions/sign-in-throttle";
import { firstOwnerLink } from "../../src/domain/teams";
import { LOCAL_CLIENT, resolveClientAddress } from "../../src/http/client-address";
import { parseIpRange } from "../../src/lib/ip-address";
import { createLogger } from "../../src/core/logger";
import { createTestApp, serve, testConfig, type TestApp } from "../helpers/app";

const ADMIN = "admin-token-for-throttle-tests-0123456789";
const TRUSTED = "10.0.0.0/8, fd00::/8";

let t: TestApp;
/** The clock of the test app's deps: the throttle's window is moved by moving it, never by sleeping. */
let now = Date.parse("2030-01-01T00:00:00Z");

beforeAll(async () => {
  t = await createTestApp({ env: { HONE_ADMIN_TOKEN: ADMIN, HONE_TRUSTED_PROXIES: TRUSTED }, deps: { clock: () => new Date(now) } });
}, 60_000);
afterAll(async () => {
  await t.close();
});

// Every test uses its own addresses (documentation ranges) and tokens with their own first 12
// characters, so their counters never meet.
let addressSeq = 0;
const freshAddress = () => `203.0.113.${++addressSeq}`;
const wrongToken = () => `wrong-${crypto.randomUUID()}`;
const wrongApiKey = () => `hone_sk_${crypto.randomUUID().replaceAll("-", "").padEnd(40, "x")}`;

type Call = { peer?: string | null; headers?: Record<string, string> };

/** tRPC session.signIn through app.handle, from `peer` (the TCP peer Bun would report). */
function signIn(token: string, o: Call = {}): Promise<Response> {
  const request = new Request("http://localhost/trpc/session.signIn", {
    method: "POST",
    headers: { "content-type": "application/json", "x-hone-console": "1", ...o.headers },
    body: JSON.stringify({ token }),
  });
  return t.app.handle(request, o.peer);
}

function rest(key: string, o: Call = {}): Promise<Response> {
  return t.app.handle(new Request("http://localhost/api/v1/datasets", { headers: { authorization: `Bearer ${key}`, ...o.headers } }), o.peer);
}

function graphql(key: string, o: Call = {}): Promise<Response> {
  return t.app.handle(
    new Request("http://localhost/graphql", {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...o.headers },
      body: JSON.stringify({ query: "{ apiKeys { id } }" }),
    }),
    o.peer,
  );
}

function trpcQuery(key: string, o: Call = {}): Promise<Response> {
  return t.app.handle(new Request("http://localhost/trpc/apiKeys.list", { headers: { authorization: `Bearer ${key}`, ...o.headers } }), o.peer);
}

type TrpcError = { error: { message: string; data: { code: string; httpStatus: number } } };

/** Fails SIGN_IN_MAX_FAILURES sign-ins from `peer`, checking each is a plain 401. */
async function exhaust(o: Call) {
  for (let i = 0; i < SIGN_IN_MAX_FAILURES; i++) {
    const res = await signIn(wrongToken(), o);
    expect(res.status).toBe(401);
    expect(((await res.json()) as TrpcError).error.data.code).toBe("UNAUTHORIZED");
  }
}

describe("session.signIn", () => {
  test("the 11th wrong sign-in within a minute is refused with 429 and Retry-After", async () => {
    const peer = freshAddress();
    await exhaust({ peer });
    const res = await signIn(wrongToken(), { peer });
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("60");
    const body = (await res.json()) as TrpcError;
    expect(body.error.data.code).toBe("RATE_LIMITED");
    expect(body.error.message).toBe("Too many failed sign-ins from this address (at most 10 a minute): try again in 60 s");
    expect(res.headers.get("set-cookie")).toBeNull();
  });

  test("while the address is blocked the admin token is refused unchecked, but a valid API key signs in and calls the API", async () => {
    const peer = freshAddress();
    await exhaust({ peer });
    // Not API-key-shaped, so it is not even compared: a correct admin token is refused too.
    const admin = await signIn(ADMIN, { peer });
    expect(admin.status).toBe(429);
    expect(admin.headers.get("retry-after")).toBe("60");
    // A well-formed key is always checked: a wrong one is refused, a valid one proceeds.
    expect((await signIn(wrongApiKey(), { peer })).status).toBe(429);
    const key = await signIn(t.project.apiKey, { peer });
    expect(key.status).toBe(200);
    expect(key.headers.get("set-cookie")).toMatch(/^hone_session=/);
    expect((await rest(t.project.apiKey, { peer })).status).toBe(200);
    // Another address is not blocked: the admin token signs in from there.
    expect((await signIn(ADMIN, { peer: freshAddress() })).status).toBe(200);
  });

  test("a success does not reset the counter of the failures before it", async () => {
    const peer = freshAddress();
    for (let i = 0; i < SIGN_IN_MAX_FAILURES - 1; i++) expect((await signIn(wrongToken(), { peer })).status).toBe(401);
    expect((await signIn(ADMIN, { peer })).status).toBe(200);
    expect((await signIn(t.project.apiKey, { peer })).status).toBe(200);
    expect((await signIn(wrongToken(), { peer })).status).toBe(401);
    expect((await signIn(wrongToken(), { peer })).status).toBe(429);
  });

  test("the window slides: a slot frees a minute after the failure that filled it", async () => {
    const peer = freshAddress();
    for (let i = 0; i < 5; i++) expect((await signIn(wrongToken(), { peer })).status).toBe(401);
    now += 20_000;
    for (let i = 0; i < 5; i++) expect((await signIn(wrongToken(), { peer })).status).toBe(401);
    let res = await signIn(ADMIN, { peer });
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("40");
    now += 39_000;
    res = await signIn(ADMIN, { peer });
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("1");
    expect(((await res.json()) as TrpcError).error.message).toContain("try again in 1 s");
    now += 1_000;
    // The first five failures have left the window: five more attempts may be checked.
    expect((await signIn(ADMIN, { peer })).status).toBe(200);
    for (let i = 0; i < 5; i++) expect((await signIn(wrongToken(), { peer })).status).toBe(401);
    expect((await signIn(wrongToken(), { peer })).status).toBe(429);
    now += SIGN_IN_WINDOW_MS;
    expect((await signIn(wrongToken(), { peer })).status).toBe(401);
  });

  test("the token's first 12 characters are a bucket of their own, whatever the address", async () => {
    // Ten guesses at the admin token's tail, each from another address.
    const prefix = ADMIN.slice(0, 12);
    for (let i = 0; i < SIGN_IN_MAX_FAILURES; i++) expect((await signIn(`${prefix}${wrongToken()}`, { peer: freshAddress() })).status).toBe(401);
    const res = await signIn(ADMIN, { peer: freshAddress() });
    expect(res.status).toBe(429);
    expect(((await res.json()) as TrpcError).error.message).toBe(
      "Too many failed sign-ins with a token that starts like this one (at most 10 a minute): try again in 60 s",
    );
    // Other tokens are not concerned.
    expect((await signIn(wrongToken(), { peer: freshAddress() })).status).toBe(401);
    now += SIGN_IN_WINDOW_MS;
    expect((await signIn(ADMIN, { peer: freshAddress() })).status).toBe(200);
  });

  test("parallel guesses cannot slip past the count: exactly 10 are checked", async () => {
    const peer = freshAddress();
    const statuses = await Promise.all(Array.from({ length: 30 }, () => signIn(wrongToken(), { peer }).then((r) => r.status)));
    expect(statuses.filter((s) => s === 401)).toHaveLength(SIGN_IN_MAX_FAILURES);
    expect(statuses.filter((s) => s === 429)).toHaveLength(30 - SIGN_IN_MAX_FAILURES);
  });

  test("in-process requests, with no peer, count as one local client", async () => {
    now += SIGN_IN_WINDOW_MS;
    await exhaust({ peer: undefined });
    expect((await signIn(wrongToken())).status).toBe(429);
    expect((await signIn(wrongToken(), { peer: freshAddress() })).status).toBe(401);
    now += SIGN_IN_WINDOW_MS;
  });
});

describe("bearer tokens on REST, GraphQL and tRPC", () => {
  test("wrong keys on REST get 401, then 429 with Retry-After; the count is shared by every transport", async () => {
    const peer = freshAddress();
    for (let i = 0; i < SIGN_IN_MAX_FAILURES; i++) {
      const res = await rest(i % 2 ? wrongApiKey() : wrongToken(), { peer });
      expect(res.status).toBe(401);
      expect(res.headers.get("retry-after")).toBeNull();
    }
    const res = await rest(wrongApiKey(), { peer });
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("60");
    expect(await res.json()).toEqual({
      message: "Too many requests with a wrong API key or admin token from this address (at most 10 a minute): try again in 60 s",
      code: "RATE_LIMITED",
      issues: [],
    });

    const gql = await graphql(wrongApiKey(), { peer });
    expect(gql.status).toBe(429);
    expect(gql.headers.get("retry-after")).toBe("60");
    expect(((await gql.json()) as { errors: { extensions: { code: string } }[] }).errors[0]!.extensions.code).toBe("RATE_LIMITED");
    // The admin token, correct or not, is not compared while the address is blocked.
    expect((await graphql(ADMIN, { peer })).status).toBe(429);

    const trpc = await trpcQuery(wrongApiKey(), { peer });
    expect(trpc.status).toBe(429);
    expect(trpc.headers.get("retry-after")).toBe("60");
    expect(((await trpc.json()) as TrpcError).error.data.code).toBe("RATE_LIMITED");

    // A valid key is never refused, on any transport.
    expect((await rest(t.project.apiKey, { peer })).status).toBe(200);
    expect((await graphql(t.project.apiKey, { peer })).status).toBe(200);
    expect((await trpcQuery(t.project.apiKey, { peer })).status).toBe(200);
    // And a console sign-in from the same address is blocked too: one count per client.
    expect((await signIn(wrongToken(), { peer })).status).toBe(429);
  });

  test("a missing or malformed Authorization header guesses nothing and is not counted", async () => {
    const peer = freshAddress();
    for (let i = 0; i < 2 * SIGN_IN_MAX_FAILURES; i++) {
      const res = await t.app.handle(new Request("http://localhost/api/v1/datasets", { headers: i % 2 ? { authorization: "Basic x" } : {} }), peer);
      expect(res.status).toBe(401);
    }
    expect((await rest(wrongToken(), { peer })).status).toBe(401);
  });

  test("1,000 successful API calls with a valid key are never throttled, even from a blocked address", async () => {
    const peer = freshAddress();
    await exhaust({ peer });
    for (let i = 0; i < 1_000; i++) {
      const res = await rest(t.project.apiKey, { peer });
      if (res.status !== 200) throw new Error(`call ${i} answered ${res.status}`);
    }
    expect((await rest(wrongApiKey(), { peer })).status).toBe(429);
  });

  test("counters are per process: another app on the same database has its own", async () => {
    const peer = freshAddress();
    await exhaust({ peer });
    expect((await signIn(ADMIN, { peer })).status).toBe(429);
    const other = createApp(
      createDeps({
        config: testConfig({ HONE_ADMIN_TOKEN: ADMIN }),
        database: t.db.database,
        logger: createLogger("silent"),
        secretKey: t.deps.secretKey,
      }),
    );
    const res = await other.handle(new Request("http://localhost/api/v1/datasets", { headers: { authorization: `Bearer ${wrongToken()}` } }), peer);
    expect(res.status).toBe(401);
  });
});

describe("the client address", () => {
  test("X-Forwarded-For from a trusted proxy names the client; another client behind it is not blocked", async () => {
    const proxy = "10.1.2.3";
    const client = { peer: proxy, headers: { "x-forwarded-for": "198.51.100.7" } };
    await exhaust(client);
    expect((await signIn(wrongToken(), client)).status).toBe(429);
    // Another client behind the same proxy.
    expect((await signIn(wrongToken(), { peer: proxy, headers: { "x-forwarded-for": "198.51.100.8" } })).status).toBe(401);
    // The same client through a second trusted proxy, with a forged entry on the left.
    const chained = { peer: "10.9.9.9", headers: { "x-forwarded-for": "192.0.2.1, 198.51.100.7, 10.1.2.3" } };
    expect((await signIn(wrongToken(), chained)).status).toBe(429);
    // The proxy itself, without the header, is a client of its own.
    expect((await signIn(wrongToken(), { peer: proxy })).status).toBe(401);
  });

  test("X-Forwarded-For from an untrusted peer is ignored", async () => {
    const peer = freshAddress();
    for (let i = 0; i < SIGN_IN_MAX_FAILURES; i++) {
      expect((await signIn(wrongToken(), { peer, headers: { "x-forwarded-for": `198.51.100.${100 + i}` } })).status).toBe(401);
    }
    expect((await signIn(wrongToken(), { peer, headers: { "x-forwarded-for": "198.51.100.200" } })).status).toBe(429);
  });

  test("resolveClientAddress walks X-Forwarded-For from the right, past trusted proxies only", () => {
    const trusted = ["10.0.0.0/8", "fd00::/8", "192.0.2.10"].map((r) => parseIpRange(r)!);
    const at = (peer: string | undefined, xff: string | null) => resolveClientAddress(peer, xff, trusted);
    expect(at(undefined, "198.51.100.1")).toBe(LOCAL_CLIENT);
    expect(at("198.51.100.9", "198.51.100.1")).toBe("198.51.100.9");
    expect(at("::ffff:198.51.100.9", null)).toBe("198.51.100.9");
    expect(at("10.0.0.1", null)).toBe("10.0.0.1");
    expect(at("10.0.0.1", "198.51.100.1")).toBe("198.51.100.1");
    expect(at("::ffff:10.0.0.1", "1.1.1.1, 198.51.100.1, 192.0.2.10")).toBe("198.51.100.1");
    expect(at("10.0.0.1", "198.51.100.1:4711")).toBe("198.51.100.1");
    expect(at("fd00::1", "[2001:db8:1:2:3:4:5:6]:443")).toBe("2001:db8:1:2::/64");
    // IPv6 clients count per /64: a host changing its low bits is the same client.
    expect(at("2001:db8:1:2::1", null)).toBe(at("2001:db8:1:2:ffff::9", null));
    expect(at("2001:db8:1:2::1", null)).not.toBe(at("2001:db8:1:3::1", null));
    // Every hop trusted: the farthest is the client.
    expect(at("10.0.0.1", "10.0.0.2, 10.0.0.3")).toBe("10.0.0.2");
    // What a trusted proxy wrote but is no address is kept as written (bounded).
    expect(at("10.0.0.1", "unknown")).toBe("unknown");
    expect(at("10.0.0.1", "  , ")).toBe("10.0.0.1");
  });

  test("HONE_TRUSTED_PROXIES takes IPs and CIDRs of both families, nothing else", () => {
    expect(loadConfig({ HONE_TRUSTED_PROXIES: "10.0.0.0/8, 192.0.2.1 ,fd00::/8,::1" }).trustedProxies).toHaveLength(4);
    expect(loadConfig({}).trustedProxies).toEqual([]);
    expect(() => loadConfig({ HONE_TRUSTED_PROXIES: "proxy.internal" })).toThrow(ConfigError);
    expect(() => loadConfig({ HONE_TRUSTED_PROXIES: "10.0.0.0/33" })).toThrow(/HONE_TRUSTED_PROXIES entry "10.0.0.0\/33"/);
    expect(() => loadConfig({ HONE_TRUSTED_PROXIES: "10.0.0.1:8080" })).toThrow(/HONE_TRUSTED_PROXIES/);
  });

  test("over a real socket: the peer is used, and X-Forwarded-For only when the peer is trusted", async () => {
    // The test app trusts 10/8 and fd00::/8 only: the loopback peer is the client, whatever it says.
    const untrusted = serve(t.app);
    // A second process trusting the loopback proxy, on the same database.
    const behindProxy = createApp(
      createDeps({
        config: testConfig({ HONE_ADMIN_TOKEN: ADMIN, HONE_TRUSTED_PROXIES: "127.0.0.1, ::1" }),
        database: t.db.database,
        logger: createLogger("silent"),
        secretKey: t.deps.secretKey,
      }),
    );
    const trusted = serve(behindProxy);
    const post = (base: string, token: string, xff?: string) =>
      fetch(`${base}/trpc/session.signIn`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-hone-console": "1", ...(xff ? { "x-forwarded-for": xff } : {}) },
        body: JSON.stringify({ token }),
      }).then(async (r) => {
        await r.body?.cancel();
        return r.status;
      });
    try {
      now += SIGN_IN_WINDOW_MS;
      for (let i = 0; i < SIGN_IN_MAX_FAILURES; i++) expect(await post(untrusted.url, wrongToken(), `198.51.100.${i}`)).toBe(401);
      expect(await post(untrusted.url, wrongToken(), "198.51.100.99")).toBe(429);

      for (let i = 0; i < SIGN_IN_MAX_FAILURES; i++) expect(await post(trusted.url, wrongToken(), "198.51.100.1")).toBe(401);
      expect(await post(trusted.url, wrongToken(), "198.51.100.1")).toBe(429);
      expect(await post(trusted.url, wrongToken(), "198.51.100.2")).toBe(401);
      expect(await post(trusted.url, ADMIN, "198.51.100.3")).toBe(200);
    } finally {
      await untrusted.stop();
      await trusted.stop();
      now += SIGN_IN_WINDOW_MS;
    }
  });
});

describe("every password check: changing a password and accepting an invitation", () => {
  const OWNER = { email: "owner@example.com", password: "owner password 123" };
  let ownerCookie = "";

  /** A tRPC mutation as the console sends it, from `peer`, with a session cookie when given. */
  const mutate = (path: string, input: unknown, o: { peer: string; cookie?: string }) =>
    t.app.handle(
      new Request(`http://localhost/trpc/${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-hone-console": "1", ...(o.cookie ? { cookie: o.cookie } : {}) },
        body: JSON.stringify(input),
      }),
      o.peer,
    );
  const cookieOf = (res: Response) => res.headers.getSetCookie()[0]!.split(";")[0]!;
  const tokenOf = (url: string) => url.slice(url.indexOf("#") + 1);
  const dataOf = async <T>(res: Response) => {
    expect(res.status).toBe(200);
    return ((await res.json()) as { result: { data: T } }).result.data;
  };
  const invite = async (email: string) =>
    tokenOf((await dataOf<{ url: string }>(await mutate("team.invite", { email, role: "viewer" }, { peer: freshAddress(), cookie: ownerCookie }))).url);
  /** A person with a password and a session (a new account: accepting sets the password, nothing is checked). */
  const person = async (email: string, password: string) => {
    const res = await mutate("session.acceptInvitation", { token: await invite(email), password }, { peer: freshAddress() });
    expect(res.status).toBe(200);
    return cookieOf(res);
  };
  /** An existing account invited again (removed from the organisation first): its password is asked for. */
  const reinvite = async (email: string) => {
    const members = (await (
      await t.app.handle(new Request("http://localhost/trpc/team.members", { headers: { cookie: ownerCookie, "x-hone-console": "1" } }), freshAddress())
    ).json()) as { result: { data: { userId: string; email: string }[] } };
    const userId = members.result.data.find((m) => m.email === email)!.userId;
    await dataOf(await mutate("team.remove", { userId }, { peer: freshAddress(), cookie: ownerCookie }));
    return invite(email);
  };
  const refusedWithRetryAfter = async (res: Response, scope: string) => {
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("60");
    const body = (await res.json()) as TrpcError;
    expect(body.error.data.code).toBe("RATE_LIMITED");
    expect(body.error.message).toBe(`Too many wrong passwords ${scope} (at most 10 a minute): try again in 60 s`);
    expect(res.headers.get("set-cookie")).toBeNull();
  };

  beforeAll(async () => {
    now += SIGN_IN_WINDOW_MS;
    const res = await mutate("session.acceptInvitation", { token: tokenOf((await firstOwnerLink(t.deps))!), ...OWNER }, { peer: freshAddress() });
    expect(res.status).toBe(200);
    ownerCookie = cookieOf(res);
  });

  test("session.changePassword: 10 wrong current passwords, then 429 with Retry-After even for the right one; other accounts are unaffected", async () => {
    now += SIGN_IN_WINDOW_MS;
    const ann = { email: "ann@example.com", password: "ann password 123" };
    const annCookie = await person(ann.email, ann.password);
    const bobCookie = await person("bob@example.com", "bob password 123");
    const peer = freshAddress();
    for (let i = 0; i < SIGN_IN_MAX_FAILURES; i++) {
      const res = await mutate("session.changePassword", { currentPassword: `guess ${i}`, newPassword: "a new password 123" }, { peer, cookie: annCookie });
      expect(res.status).toBe(400);
      expect(((await res.json()) as TrpcError).error.message).toBe("The current password is wrong");
    }
    const right = { currentPassword: ann.password, newPassword: "a new password 123" };
    await refusedWithRetryAfter(await mutate("session.changePassword", right, { peer, cookie: annCookie }), "from this address");
    // The account's count holds from any address, and is the one sign-in uses.
    await refusedWithRetryAfter(await mutate("session.changePassword", right, { peer: freshAddress(), cookie: annCookie }), "for this account");
    await refusedWithRetryAfter(await mutate("session.signInWithPassword", ann, { peer: freshAddress() }), "for this account");
    // The address's count holds for another account too; elsewhere that account changes its password.
    const bobs = { currentPassword: "bob password 123", newPassword: "a fresh password 456" };
    await refusedWithRetryAfter(await mutate("session.changePassword", bobs, { peer, cookie: bobCookie }), "from this address");
    expect((await dataOf<{ changed: boolean }>(await mutate("session.changePassword", bobs, { peer: freshAddress(), cookie: bobCookie }))).changed).toBe(true);
    // The refusals changed nothing: a minute on, the old password is still the one.
    now += SIGN_IN_WINDOW_MS;
    expect((await dataOf<{ changed: boolean }>(await mutate("session.changePassword", right, { peer, cookie: annCookie }))).changed).toBe(true);
  });

  test("session.acceptInvitation as an existing account: 10 wrong passwords, then 429 with Retry-After even for the right one; other accounts are unaffected", async () => {
    now += SIGN_IN_WINDOW_MS;
    const cy = { email: "cy@example.com", password: "cy password 123" };
    const dee = { email: "dee@example.com", password: "dee password 123" };
    const cyCookie = await person(cy.email, cy.password);
    await person(dee.email, dee.password);
    // Guesses made through a change of password count with those made through an invitation.
    const peer = freshAddress();
    for (let i = 0; i < 4; i++) {
      const res = await mutate("session.changePassword", { currentPassword: `guess ${i}`, newPassword: "a new password 123" }, { peer, cookie: cyCookie });
      expect(res.status).toBe(400);
    }
    const cyToken = await reinvite(cy.email);
    const deeToken = await reinvite(dee.email);
    for (let i = 4; i < SIGN_IN_MAX_FAILURES; i++) {
      const res = await mutate("session.acceptInvitation", { token: cyToken, password: `guess ${i}` }, { peer });
      expect(res.status).toBe(401);
      expect(((await res.json()) as TrpcError).error.data.code).toBe("UNAUTHORIZED");
    }
    await refusedWithRetryAfter(await mutate("session.acceptInvitation", { token: cyToken, password: cy.password }, { peer }), "from this address");
    await refusedWithRetryAfter(
      await mutate("session.acceptInvitation", { token: cyToken, password: cy.password }, { peer: freshAddress() }),
      "for this account",
    );
    // Another account, from another address, accepts its own invitation at once.
    expect(
      (
        await dataOf<{ user: { email: string } }>(
          await mutate("session.acceptInvitation", { token: deeToken, password: dee.password }, { peer: freshAddress() }),
        )
      ).user.email,
    ).toBe(dee.email);
    // The invitation was not used up by the refusals: a minute on, the right password accepts it.
    now += SIGN_IN_WINDOW_MS;
    expect(
      (await dataOf<{ user: { email: string } }>(await mutate("session.acceptInvitation", { token: cyToken, password: cy.password }, { peer }))).user.email,
    ).toBe(cy.email);
  });
});

describe("the throttle's memory", () => {
  test("is bounded: past the cap the least recently failed buckets are forgotten", () => {
    let clock = 0;
    const throttle = createSignInThrottle(() => clock, { maxBuckets: 100 });
    for (let i = 0; i < SIGN_IN_MAX_FAILURES; i++) throttle.fail("first", `t${i}-padding-xx`);
    expect(throttle.refusal("first", "other-token-xx")).not.toBeNull();
    for (let i = 0; i < 1_000; i++) {
      clock++;
      throttle.fail(`addr-${i}`, `tok-${i}-padding-xx`);
      expect(throttle.size()).toBeLessThanOrEqual(100);
    }
    expect(throttle.refusal("first", "other-token-xx")).toBeNull();
    // The most recent ones are still counted.
    for (let i = 1; i < SIGN_IN_MAX_FAILURES; i++) throttle.fail("addr-999", `again-${i}-padding`);
    expect(throttle.refusal("addr-999", "fresh-token-xx")?.scope).toBe("address");
  });

  test("buckets empty themselves as their failures leave the window", () => {
    let clock = 0;
    const throttle = createSignInThrottle(() => clock);
    throttle.fail("a", "token-prefix-1");
    expect(throttle.size()).toBe(2);
    clock += SIGN_IN_WINDOW_MS;
    expect(throttle.refusal("a", "token-prefix-1")).toBeNull();
    expect(throttle.size()).toBe(0);
  });
});

describe("GET /metrics with HONE_METRICS_TOKEN", () => {
  test("wrong tokens count toward the throttle: past 10 a minute, 429 with Retry-After, even for the right one", async () => {
    const METRICS = "metrics-token-for-throttle-0123456789";
    const m = await createTestApp({ env: { HONE_METRICS_TOKEN: METRICS } });
    try {
      const scrape = (token: string, peer: string) =>
        m.app.handle(new Request("http://localhost/metrics", { headers: { authorization: `Bearer ${token}` } }), peer);
      const peer = freshAddress();
      expect((await scrape(METRICS, peer)).status).toBe(200);
      for (let i = 0; i < SIGN_IN_MAX_FAILURES; i++) expect((await scrape(`nope-${i}-${crypto.randomUUID()}`, peer)).status).toBe(401);
      const blocked = await scrape(`nope-x-${crypto.randomUUID()}`, peer);
      expect(blocked.status).toBe(429);
      expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThan(0);
      // While blocked, the token is not even compared; another address still scrapes.
      expect((await scrape(METRICS, peer)).status).toBe(429);
      expect((await scrape(METRICS, freshAddress())).status).toBe(200);
    } finally {
      await m.close();
    }
  });
});
