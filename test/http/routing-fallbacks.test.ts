import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { createTestApp, openAiClient, serve, storeProviderKey, type TestApp, type TestProject } from "../helpers/app";
import { type ChaosMode, type ChaosUpstream, startChaosUpstream } from "../helpers/chaos-upstream";
import { type FakeUpstream, startFakeAnthropic } from "../helpers/fake-upstreams";
import { gqlData } from "../helpers/gql";
import { latestLog } from "../helpers/logs";
import { rest, type Rest } from "../helpers/rest";
import { waitFor } from "../helpers/wait-for";

// Per-request fallbacks (hone.fallbacks, op-fallbacks) against upstreams that fail on demand:
// OpenAI's and Gemini's base URLs point at chaos fakes, Anthropic's at the Anthropic fake.
let t: TestApp;
let api: Rest;
let primary: ChaosUpstream;
let second: ChaosUpstream;
let anthropic: FakeUpstream;
let server: { url: string; stop(): Promise<void> };

const UPSTREAM_TIMEOUT_MS = 400;
const RETRY_AFTER_MAX_MS = 300;
const CIRCUIT_COOLDOWN_MS = 400;

beforeAll(async () => {
  primary = await startChaosUpstream("primary");
  second = await startChaosUpstream("second");
  anthropic = startFakeAnthropic();
  t = await createTestApp({
    env: {
      OPENAI_BASE_URL: primary.url,
      GEMINI_BASE_URL: second.url,
      ANTHROPIC_BASE_URL: anthropic.url,
      HONE_UPSTREAM_TIMEOUT_MS: String(UPSTREAM_TIMEOUT_MS),
      HONE_RETRY_BACKOFF_MS: "1",
      HONE_RETRY_AFTER_MAX_MS: String(RETRY_AFTER_MAX_MS),
      HONE_CIRCUIT_FAILURES: "5",
      HONE_CIRCUIT_COOLDOWN_MS: String(CIRCUIT_COOLDOWN_MS),
    },
  });
  await keys(t.project);
  api = rest(t);
  server = serve(t.app);
});
// Each test starts with every circuit closed (one test's failures would open the next one's).
beforeEach(() => t.deps.caches.circuits.clear());
afterAll(async () => {
  await server.stop();
  await Promise.all([primary.stop(), second.stop(), anthropic.stop()]);
  await t.close();
});

async function keys(p: TestProject) {
  await storeProviderKey(t, "openai", "sk-primary-0001", p.projectId);
  await storeProviderKey(t, "gemini", "sk-second-0001", p.projectId);
  await storeProviderKey(t, "anthropic", "sk-ant-0001", p.projectId);
}

/** Every request to `chaos` answered with `modes` in turn, then ok. */
function script(chaos: ChaosUpstream, ...modes: ChaosMode[]) {
  const left = [...modes];
  chaos.decide = () => left.shift() ?? "ok";
}
const healthy = () => {
  script(primary);
  script(second);
};
const ask = (q: string, extra: Record<string, unknown> = {}) => ({
  model: "gpt-4o-mini",
  messages: [{ role: "user" as const, content: q }],
  ...extra,
});
const content = (c: { choices: unknown[] }) => (c.choices[0] as { message: { content: string } }).message.content;

describe("per-request fallbacks", () => {
  test("a 500 is retried, then the next target answers; the log keeps every attempt", async () => {
    script(primary, "500", "500");
    const r = await api.ok("POST /chat/completions", { body: ask("q1", { hone: { fallbacks: ["gemini:gemini-2.5-flash"] } }) });
    expect(content(r)).toBe("second: q1");
    const log = await latestLog(t);
    expect(log.statusCode).toBe(200);
    expect(log.provider).toBe("gemini");
    expect(log.model).toBe("openai:gpt-4o-mini");
    expect(log.attempts!.map((a) => [a.target, a.statusCode, a.next])).toEqual([
      ["gpt-4o-mini", 500, "retried"],
      ["gpt-4o-mini", 500, "fell-back"],
      ["gemini:gemini-2.5-flash", 200, "answered"],
    ]);
    expect(log.attempts![0]!.error).toContain("chaos 500");
    // GraphQL shows them too.
    const data = await gqlData<{ log: { attempts: { target: string; statusCode: number; next: string; latencyMs: number }[]; route: null } }>(
      t,
      `query($id: ID!) { log(id: $id) { attempts { target statusCode error latencyMs next } route } }`,
      { id: log.id },
    );
    expect(data.log.attempts.map((a) => a.next)).toEqual(["retried", "fell-back", "answered"]);
    expect(data.log.route).toBeNull();
  });

  test("the op-fallbacks header works as the body member does", async () => {
    script(primary, "500", "500");
    const r = await api.ok("POST /chat/completions", { body: ask("q2"), headers: { "op-fallbacks": JSON.stringify(["gemini:g"]) } });
    expect(content(r)).toBe("second: q2");
  });

  test("a call without fallbacks is not retried: the provider's failure is the answer", async () => {
    script(primary, "500");
    const before = primary.counts["500"];
    const r = await api.fail("POST /chat/completions", { body: ask("q3") });
    expect(r.status).toBe(500);
    expect(primary.counts["500"] - before).toBe(1);
    expect((await latestLog(t)).attempts).toBeNull();
  });

  test("the request's own fault (a 400) is answered at once: no retry, no fallback", async () => {
    script(primary, "400");
    const seen = second.counts.ok;
    const r = await api.fail("POST /chat/completions", { body: ask("q4", { hone: { fallbacks: ["gemini:g"] } }) });
    expect(r.status).toBe(400);
    expect(r.body.error.message).toBe("chaos 400");
    expect(second.counts.ok).toBe(seen);
    expect((await latestLog(t)).attempts!.map((a) => a.next)).toEqual(["failed"]);
  });

  test("429: a Retry-After within HONE_RETRY_AFTER_MAX_MS is waited for on the same target; a longer one falls back at once", async () => {
    primary.retryAfter = "0.2";
    script(primary, "429");
    let started = performance.now();
    expect(content(await api.ok("POST /chat/completions", { body: ask("q5", { hone: { fallbacks: ["gemini:g"] } }) }))).toBe("primary: q5");
    expect(performance.now() - started).toBeGreaterThanOrEqual(190);

    primary.retryAfter = "30";
    script(primary, "429");
    started = performance.now();
    expect(content(await api.ok("POST /chat/completions", { body: ask("q6", { hone: { fallbacks: ["gemini:g"] } }) }))).toBe("second: q6");
    expect(performance.now() - started).toBeLessThan(RETRY_AFTER_MAX_MS);
    expect((await latestLog(t)).attempts!.map((a) => [a.statusCode, a.next])).toEqual([
      [429, "fell-back"],
      [200, "answered"],
    ]);
    // Without fallbacks the provider's Retry-After reaches the client.
    script(primary, "429");
    const direct = await api.fail("POST /chat/completions", { body: ask("q7") });
    expect(direct.status).toBe(429);
    expect(direct.headers.get("retry-after")).toBe("30");
    primary.retryAfter = "0";
  });

  test("timeouts and connections reset before any header are retried, then fall back", async () => {
    script(primary, "timeout", "reset");
    const r = await api.ok("POST /chat/completions", { body: ask("q8", { hone: { fallbacks: ["gemini:g"] } }) });
    expect(content(r)).toBe("second: q8");
    const attempts = (await latestLog(t)).attempts!;
    expect(attempts.map((a) => [a.statusCode, a.next])).toEqual([
      [504, "retried"],
      [502, "fell-back"],
      [200, "answered"],
    ]);
    expect(attempts[0]!.latencyMs).toBeGreaterThanOrEqual(UPSTREAM_TIMEOUT_MS - 20);
  });

  test("every target failing: the last failure is the answer, and the log shows them all", async () => {
    script(primary, "500", "500");
    script(second, "500", "500");
    const r = await api.fail("POST /chat/completions", { body: ask("q9", { hone: { fallbacks: ["gemini:g"] } }) });
    expect(r.status).toBe(500);
    const log = await latestLog(t);
    expect(log.statusCode).toBe(500);
    expect(log.attempts!.map((a) => a.next)).toEqual(["retried", "fell-back", "retried", "failed"]);
    healthy();
  });

  test("a fallback that is no model string, or too many, is a 400 naming it", async () => {
    const bad = await api.fail("POST /chat/completions", { body: ask("q", { hone: { fallbacks: ["nope:x"] } }) });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain("Invalid fallback `nope:x`");
    const many = await api.fail("POST /chat/completions", { body: ask("q", { hone: { fallbacks: Array(6).fill("gemini:g") } }) });
    expect(many.status).toBe(400);
    expect(many.body.message).toContain("Input validation failed");
    const header = await api.fail("POST /chat/completions", { body: ask("q"), headers: { "op-fallbacks": "gemini:g" } });
    expect(header.status).toBe(400);
    expect(header.body.message).toContain("op-fallbacks");
  });

  test("however a route is configured, one call makes at most 20 upstream attempts", async () => {
    const target = (i: number) => ({ targets: Array.from({ length: 10 }, (_, k) => ({ model: `openai:m-${i}-${k}`, weight: 10 })) });
    const made = await gqlData<{ createRoute: { slug: string } }>(t, `mutation($input: CreateRouteInput!) { createRoute(input: $input) { slug } }`, {
      input: { slug: "everything-fails", attempts: 10, groups: [0, 1, 2, 3, 4].map(target) },
    });
    expect(made.createRoute.slug).toBe("everything-fails");
    primary.decide = () => "500";
    const before = primary.counts["500"];
    const r = await api.fail("POST /chat/completions", { body: ask("x", { model: "hone:everything-fails" }) });
    expect(r.status).toBe(500);
    expect(primary.counts["500"] - before).toBe(20);
    const attempts = (await latestLog(t)).attempts!;
    expect(attempts).toHaveLength(20);
    expect(attempts.at(-1)!.next).toBe("failed");
    healthy();
  });

  test("a fallback with no provider key stored is passed over, and the log says why", async () => {
    const other = await t.createProject("no-gemini");
    await storeProviderKey(t, "openai", "sk-primary-0002", other.projectId);
    await storeProviderKey(t, "anthropic", "sk-ant-0002", other.projectId);
    script(primary, "500", "500");
    const r = await api.ok("POST /chat/completions", {
      key: other.apiKey,
      body: ask("q10", { hone: { fallbacks: ["gemini:g", "anthropic:claude-haiku-4-5"] } }),
    });
    expect(content(r)).toBe("echo: q10");
    const attempts = (await latestLog(t, other.projectId)).attempts!;
    expect(attempts.map((a) => [a.target, a.next])).toEqual([
      ["gpt-4o-mini", "retried"],
      ["gpt-4o-mini", "fell-back"],
      ["gemini:g", "fell-back"],
      ["anthropic:claude-haiku-4-5", "answered"],
    ]);
    expect(attempts[2]!.error).toContain("No gemini API key");
  });
});

describe("streams", () => {
  test("a stream whose connection resets before its first byte falls back; cross-provider (OpenAI to Anthropic) through translation", async () => {
    script(primary, "reset", "reset");
    const sdk = openAiClient(server.url, t.project.apiKey);
    const stream = await sdk.chat.completions.create({
      ...ask("q11"),
      stream: true,
      // @ts-expect-error Hone's own member
      hone: { fallbacks: ["anthropic:claude-haiku-4-5"] },
    });
    let text = "";
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? "";
    expect(text).toBe("echo: q11");
    const log = await waitFor(async () => {
      const l = await latestLog(t);
      return l.attempts?.length === 3 ? l : null;
    });
    expect(log.provider).toBe("anthropic");
    expect(log.attempts!.map((a) => a.next)).toEqual(["retried", "fell-back", "answered"]);
  });

  test("a stream broken after its first byte reached the client is reported, never retried", async () => {
    script(primary, "reset-mid-stream");
    const before = { primary: primary.counts.ok + primary.counts["reset-mid-stream"], second: second.counts.ok };
    const sdk = openAiClient(server.url, t.project.apiKey);
    const stream = await sdk.chat.completions.create({
      ...ask("q12"),
      stream: true,
      // @ts-expect-error Hone's own member
      hone: { fallbacks: ["gemini:g"] },
    });
    let text = "";
    const failure = await (async () => {
      for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? "";
      return null;
    })().catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(OpenAI.APIError);
    expect(text).toBe("primary: ");
    expect(primary.counts.ok + primary.counts["reset-mid-stream"] - before.primary).toBe(1);
    expect(second.counts.ok).toBe(before.second);
    const log = await waitFor(async () => {
      const l = await latestLog(t);
      return l.statusCode === 502 ? l : null;
    });
    expect(log.attempts!.map((a) => a.next)).toEqual(["answered"]);
  });
});

describe("other protocols", () => {
  test("/messages (Anthropic SDK) with op-fallbacks: served through the chat form, any target may answer", async () => {
    script(primary, "500", "500");
    const sdk = new Anthropic({ baseURL: `${server.url}/api`, apiKey: t.project.apiKey, maxRetries: 0 });
    const m = await sdk.messages.create(
      { model: "openai:gpt-4o-mini", max_tokens: 50, messages: [{ role: "user", content: "q13" }] },
      { headers: { "op-fallbacks": JSON.stringify(["anthropic:claude-haiku-4-5"]) } },
    );
    expect(m.content[0]).toMatchObject({ type: "text", text: "echo: q13" });
    const log = await latestLog(t);
    expect(log.api).toBe("messages");
    expect(log.attempts!.map((a) => a.next)).toEqual(["retried", "fell-back", "answered"]);
  });

  test("/responses (OpenAI SDK) with hone.fallbacks: an OpenAI model falls back to Gemini's", async () => {
    script(primary, "500", "500");
    const sdk = openAiClient(server.url, t.project.apiKey);
    const r = await sdk.responses.create({
      model: "gpt-4o-mini",
      input: "q14",
      // @ts-expect-error Hone's own member
      hone: { fallbacks: ["gemini:g"] },
    });
    expect(r.output_text).toBe("second: q14");
    const log = await latestLog(t);
    expect(log.api).toBe("responses");
    expect(log.attempts!.map((a) => [a.target, a.next])).toEqual([
      ["gpt-4o-mini", "retried"],
      ["gpt-4o-mini", "fell-back"],
      ["gemini:g", "answered"],
    ]);
  });
});

describe("embeddings", () => {
  test("/embeddings with fallbacks: the next target's vectors, the attempts logged; a route of embedding models too", async () => {
    script(primary, "500", "500");
    const r = await api.ok("POST /embeddings", {
      body: { model: "text-embedding-3-small", input: "hello", hone: { fallbacks: ["gemini:text-embedding-004"] } },
    });
    expect(r.data[0]!.embedding).toEqual("second".split("").map((c) => c.charCodeAt(0) / 256));
    const log = await latestLog(t);
    expect(log.api).toBe("embeddings");
    expect(log.provider).toBe("gemini");
    expect(log.attempts!.map((a) => a.next)).toEqual(["retried", "fell-back", "answered"]);

    // A route whose first target cannot embed (Anthropic): passed over, the next group answers.
    const made = await gqlData<{ createRoute: { slug: string } }>(
      t,
      `mutation { createRoute(input: {slug: "embed", groups: [{targets: [{model: "anthropic:claude-haiku-4-5", weight: 100}]}, {targets: [{model: "openai:text-embedding-3-small", weight: 100}]}]}) { slug } }`,
    );
    expect(made.createRoute.slug).toBe("embed");
    const routed = await api.ok("POST /embeddings", { body: { model: "hone:embed", input: "hi" } });
    expect(routed.data).toHaveLength(1);
    const routedLog = await latestLog(t);
    expect(routedLog.route).toBe("embed");
    expect(routedLog.attempts!.map((a) => [a.target, a.statusCode, a.next])).toEqual([
      ["anthropic:claude-haiku-4-5", 404, "fell-back"],
      ["openai:text-embedding-3-small", 200, "answered"],
    ]);
  });
});

describe("circuit breaker", () => {
  test("a target failing HONE_CIRCUIT_FAILURES times is passed over until its cool-down ends, then probed and closed", async () => {
    const p = await t.createProject("circuit");
    await keys(p);
    const call = (q: string) => api.ok("POST /chat/completions", { key: p.apiKey, body: ask(q, { hone: { fallbacks: ["gemini:g"] } }) });
    const transitions = async (state: string) => {
      const text = await (await t.app.handle(new Request("http://localhost/metrics"))).text();
      return Number(new RegExp(`hone_circuit_transitions_total\\{target="gpt-4o-mini",state="${state}"\\} (\\d+)`).exec(text)?.[1] ?? 0);
    };
    const opened = await transitions("open");
    const closed = await transitions("closed");
    primary.decide = () => "500";
    // Five failures (three calls, retried once each but the last) open the circuit.
    for (const q of ["c1", "c2", "c3"]) expect(content(await call(q))).toBe(`second: ${q}`);
    const tried = primary.counts["500"];
    for (const q of ["c4", "c5", "c6"]) expect(content(await call(q))).toBe(`second: ${q}`);
    expect(primary.counts["500"]).toBe(tried); // passed over while open
    expect(await transitions("open")).toBe(opened + 1);
    const metrics = await (await t.app.handle(new Request("http://localhost/metrics"))).text();
    expect(metrics).toMatch(/hone_routing_attempts_total\{target="gpt-4o-mini",outcome="fell-back"\} [1-9]/);
    expect(metrics).toMatch(/hone_routing_attempts_total\{target="gemini:g",outcome="answered"\} [1-9]/);
    expect(metrics).toMatch(/hone_circuits_open\{target="gpt-4o-mini"\} 1/);

    // After the cool-down one call probes it; healthy again, the circuit closes.
    healthy();
    await Bun.sleep(CIRCUIT_COOLDOWN_MS + 50); // the cool-down passing is the point
    expect(content(await call("c7"))).toBe("primary: c7");
    expect(content(await call("c8"))).toBe("primary: c8");
    expect(await transitions("closed")).toBe(closed + 1);
    const after = await (await t.app.handle(new Request("http://localhost/metrics"))).text();
    expect(after).not.toMatch(/hone_circuits_open\{target="gpt-4o-mini"\}/);
  });
});

describe("chaos", () => {
  test("10,000 calls, the primary failing a third of them (500, 429, resets): no client sees an error", async () => {
    const p = await t.createProject("chaos");
    await keys(p);
    const modes: ChaosMode[] = ["500", "429", "reset"];
    let n = 0;
    primary.decide = () => (n++ % 3 === 0 ? modes[((n / 3) % 3) | 0]! : "ok");
    const N = 10_000;
    let next = 0;
    let errors = 0;
    const answeredBy = { primary: 0, second: 0 };
    const worker = async () => {
      while (next < N) {
        const i = next++;
        const res = await api.raw("POST /chat/completions", {
          key: p.apiKey,
          body: ask(`x${i}`, { hone: { fallbacks: ["gemini:g"], logRequest: false } }),
        });
        if (res.status !== 200) {
          errors++;
          continue;
        }
        const c = (await res.json()) as { choices: { message: { content: string } }[] };
        answeredBy[c.choices[0]!.message.content.startsWith("primary") ? "primary" : "second"]++;
      }
    };
    await Promise.all(Array.from({ length: 32 }, worker));
    expect(errors).toBe(0);
    expect(answeredBy.primary + answeredBy.second).toBe(N);
    expect(answeredBy.second).toBeGreaterThan(0);
    healthy();
  }, 120_000);
});
