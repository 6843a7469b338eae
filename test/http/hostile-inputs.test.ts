import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ImportWire } from "../../src/http/rest/wire-schemas";
import { createTestApp, serve, storeProviderKey, type TestApp } from "../helpers/app";
import { startFakeOpenAI, type FakeUpstream } from "../helpers/fake-upstreams";
import { latestLog, logsOf } from "../helpers/logs";
import { createCriterion } from "../helpers/factories";
import { rest, type Rest } from "../helpers/rest";

// Hostile values a client holding a valid key can send: each is a clear 400, or is stored with
// the value sanitised or clamped; none reaches a 500.
let t: TestApp;
let api: Rest;
let fake: FakeUpstream;
// Counts judge calls in flight on their way to the fake upstream (best-of-N concurrency).
let proxy: { url: string; stop(): Promise<void> };
let inFlight = 0;
let maxInFlight = 0;

beforeAll(async () => {
  fake = startFakeOpenAI();
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const url = new URL(req.url);
      const body = await req.text();
      const judge = body.includes("record_verdict");
      if (judge) maxInFlight = Math.max(maxInFlight, ++inFlight);
      try {
        const res = await fetch(`${fake.url}${url.pathname}`, { method: req.method, headers: req.headers, body: body || undefined });
        if (judge) await Bun.sleep(30);
        return new Response(await res.text(), { status: res.status, headers: { "content-type": res.headers.get("content-type") ?? "application/json" } });
      } finally {
        if (judge) inFlight--;
      }
    },
  });
  proxy = { url: `http://127.0.0.1:${server.port}`, stop: () => server.stop(true) };
  t = await createTestApp({ env: { OPENAI_BASE_URL: `${proxy.url}/v1`, HONE_JUDGE_CONCURRENCY: "2" } });
  api = rest(t);
  await storeProviderKey(t, "openai", "sk-hostile-test-01");
});
afterAll(async () => {
  await proxy.stop();
  await fake.stop();
  await t.close();
});

const trpcQuery = async (path: string, input: unknown) => {
  const res = await t.request("GET", `/trpc/${path}?input=${encodeURIComponent(JSON.stringify(input))}`);
  return { status: res.status, body: (await res.json()) as unknown };
};
const long = "m".repeat(3_000);

describe("/report: rejected with 400", () => {
  test.each([
    ["requestedAt 0", { requestedAt: 0 }, "requestedAt"],
    ["requestedAt in seconds", { requestedAt: 1_700_000_000 }, "requestedAt"],
    ["requestedAt as a string", { requestedAt: "2024-05-01T00:00:00Z" }, "requestedAt"],
    ["receivedAt far in the future", { receivedAt: 9e15 }, "receivedAt"],
    ["a model of 3,000 characters", { reqPayload: { model: long } }, "reqPayload.model"],
    ["a completion id of 3,000 characters", { respPayload: { id: long } }, "respPayload.id"],
    ["51 tags", { tags: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i])) }, "tags"],
    ["a tag value of 3,000 characters", { tags: { k: long } }, "tags.k"],
    ["a tag key of 3,000 characters", { tags: { [long]: "v" } }, "tags"],
  ])("%s", async (_, body, where) => {
    const r = await api.fail("POST /report", { body });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe("VALIDATION");
    expect(r.body.issues[0]!.message).toContain(where);
  });

  test("messages: [null] and other non-objects in an Anthropic report", async () => {
    for (const [reqPayload, where] of [
      [{ model: "claude-3-5-haiku-latest", messages: [null] }, "reqPayload.messages.0"],
      [{ model: "claude-3-5-haiku-latest", messages: [{ role: "user", content: [null] }] }, "reqPayload.messages.0.content"],
      [{ model: "claude-3-5-haiku-latest", messages: [], system: [7] }, "reqPayload.system"],
      [{ model: "claude-3-5-haiku-latest", messages: [], tools: [null] }, "reqPayload.tools.0"],
    ] as const) {
      const r = await api.fail("POST /report-anthropic", { body: { reqPayload } });
      expect(r.status).toBe(400);
      expect(r.body.issues.map((i) => i.message).join(" ")).toContain(where);
    }
    const resp = await api.fail("POST /report-anthropic", { body: { respPayload: { type: "message", content: [null] } } });
    expect(resp.status).toBe(400);
    expect(resp.body.issues[0]!.message).toContain("respPayload.content.0");
  });
});

describe("/report: stored sanitised or clamped", () => {
  test("lone surrogates and NUL, in values, keys, tags, model and error message, become U+FFFD", async () => {
    const r = await api.ok("POST /report", {
      body: {
        requestedAt: Date.now() - 1000,
        receivedAt: Date.now(),
        reqPayload: { model: "gpt\u0000-4o", messages: [{ role: "user", content: "a\ud800b\udc00c\u0000d 😀" }], "k\ud800": 1 },
        respPayload: { id: "chatcmpl-\ud800", choices: [] },
        errorMessage: "bad\u0000\ud800",
        tags: { "t\u0000": "v\ud800" },
      },
    });
    expect(r).toEqual({ status: "ok" });
    const log = await latestLog(t);
    expect(log.model).toBe("openai:gpt\uFFFD-4o");
    expect(log.completionId).toBe("chatcmpl-\uFFFD");
    expect(log.errorMessage).toBe("bad\uFFFD\uFFFD");
    expect(log.tags).toEqual({ "t\uFFFD": "v\uFFFD" });
    const req = log.body.reqPayload as { messages: { content: string }[]; [key: string]: unknown };
    expect(req.messages[0]!.content).toBe("a\uFFFDb\uFFFDc\uFFFDd 😀");
    expect(req["k\uFFFD"]).toBe(1);
  });

  test("token counts no call can claim are not kept (tokens and cost empty, a warning), the payload keeps them", async () => {
    await api.ok("POST /report", {
      body: {
        reqPayload: { model: "gpt-4o-mini" },
        respPayload: { id: "chatcmpl-huge", usage: { prompt_tokens: 1e10, completion_tokens: 3_000_000_000, total_tokens: 1.3e10 } },
      },
    });
    const log = await latestLog(t);
    expect([log.inputTokens, log.outputTokens, log.costUsd]).toEqual([null, null, null]);
    expect(log.warning).toContain("usage.prompt_tokens is 10000000000, not a token count");
    expect((log.body.respPayload as { usage: { prompt_tokens: number } }).usage.prompt_tokens).toBe(1e10);
  });

  test("negative and fractional token counts are not kept either", async () => {
    await api.ok("POST /report", { body: { respPayload: { id: "c-frac", usage: { prompt_tokens: -5, completion_tokens: 2.6 } } } });
    const log = await latestLog(t);
    expect([log.inputTokens, log.outputTokens]).toEqual([null, null]);
    expect(log.warning).toContain("usage.prompt_tokens is -5");
  });
});

describe("criteria ids and list caps", () => {
  const ask = { model: "gpt-4o-mini", messages: [{ role: "user" as const, content: "x" }] };

  test("op-criteria with @v99999999999 is a 400 (and so is /criteria/judge)", async () => {
    const r = await api.fail("POST /chat/completions", { body: ask, headers: { "op-criteria": JSON.stringify(["crit_x@v99999999999"]) } });
    expect(r.status).toBe(400);
    expect(r.body.message).toContain("between 1 and 2147483647");
    const j = await api.fail("POST /criteria/judge", { body: { criterion_id: "crit_x@v99999999999", output: { role: "assistant", content: "y" } } });
    expect(j.status).toBe(400);
  });

  test("more than 10 criteria, a repeated one, and hone.criteria past the cap are 400", async () => {
    const eleven = Array.from({ length: 11 }, (_, i) => `crit_${i}`);
    const many = await api.fail("POST /chat/completions", { body: ask, headers: { "op-criteria": JSON.stringify(eleven) } });
    expect(many.status).toBe(400);
    expect(many.body.message).toContain("at most 10 criteria");
    const twice = await api.fail("POST /chat/completions", { body: ask, headers: { "op-criteria": JSON.stringify(["crit_a@v1", "crit_a@v2"]) } });
    expect(twice.status).toBe(400);
    expect(twice.body.message).toContain("listed twice");
    const body = await api.fail("POST /chat/completions", { body: { ...ask, hone: { criteria: eleven } } });
    expect(body.status).toBe(400);
  });

  test("n beyond 16, op-tags past the caps are 400", async () => {
    expect((await api.fail("POST /chat/completions", { body: { ...ask, n: 17 } })).status).toBe(400);
    const tags = JSON.stringify(Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, "v"])));
    const r = await api.fail("POST /chat/completions", { body: ask, headers: { "op-tags": tags } });
    expect(r.status).toBe(400);
    expect(r.body.message).toContain("op-tags");
    expect((await api.fail("POST /chat/completions", { body: { ...ask, hone: { tags: { k: long } } } })).status).toBe(400);
  });

  test("more than 1,000 logIds is a 400", async () => {
    const ds = await api.ok("POST /datasets", { body: { name: "caps" } });
    const ids = Array.from({ length: 1_001 }, (_, i) => `log_${i}`);
    const res = await t.request("POST", "/trpc/datasets.importLogs", { body: { datasetId: ds.id, logIds: ids } });
    expect(res.status).toBe(400);
  });

  test("an alignment set of more than 10,000 rows is a 400", async () => {
    const row = JSON.stringify({
      messages: [
        { role: "user", content: "q" },
        { role: "assistant", content: "a" },
      ],
    });
    const res = await t.request("POST", "/trpc/criteria.importAlignmentSet", { body: { criterionId: "crit_x", jsonl: Array(10_001).fill(row).join("\n") } });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { message: expect.stringContaining("at most 10000 rows") } });
  });

  test("a JSONL line longer than 4 MB is a 400, shorter lines import", async () => {
    const ds = await api.ok("POST /datasets", { body: { name: "lines" } });
    const ok = JSON.stringify({
      messages: [
        { role: "user", content: "q" },
        { role: "assistant", content: "a" },
      ],
    });
    const huge = JSON.stringify({
      messages: [
        { role: "user", content: "q".repeat(4 * 1024 * 1024) },
        { role: "assistant", content: "a" },
      ],
    });
    const res = await api.fail("POST /datasets/:datasetId/import", {
      params: { datasetId: ds.id },
      body: `${ok}\n${huge}\n`,
      headers: { "content-type": "application/x-ndjson" },
    });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain("too long");
    // A raw JSONL body, which the route's typed body (one entry) does not describe: its answer is parsed here.
    const fine = await api.raw("POST /datasets/:datasetId/import", {
      params: { datasetId: ds.id },
      body: `${ok}\n`,
      headers: { "content-type": "application/x-ndjson" },
    });
    expect(ImportWire.parse(await fine.json()).entries_created).toBe(1);
  });

  test("best-of-N judges run at most HONE_JUDGE_CONCURRENCY at a time", async () => {
    const ids: string[] = [];
    for (const name of ["a", "b"]) {
      // Not a declared REST route: kept as a plain request, its answer read for an id only.
      const r = await t.request("POST", "/api/v1/criteria", { body: { name, judge_model: "openai:judge-1", prompt: "Judge {{output}}" } });
      const created = (await r.json()) as { id?: unknown };
      ids.push(typeof created.id === "string" ? created.id : await gqlCreate(name));
    }
    maxInFlight = 0;
    const server = serve(t.app);
    try {
      const r = await api.ok("POST /chat/completions", { body: { ...ask, n: 4 }, headers: { "op-criteria": JSON.stringify(ids) } });
      expect(r.choices).toHaveLength(4);
      for (const c of r.choices) {
        // Both criteria judged every choice (an empty result set would pass an `every`).
        expect(Object.keys(c.criteria_results!).sort()).toEqual([...ids].sort());
        expect(Object.values(c.criteria_results!).map((x) => x.status)).toEqual(["success", "success"]);
      }
    } finally {
      await server.stop();
    }
    expect(maxInFlight).toBeGreaterThan(0);
    expect(maxInFlight).toBeLessThanOrEqual(2);
  });
});

const gqlCreate = async (name: string) => (await createCriterion(t, { name, judgeModel: "openai:judge-1", prompt: "Judge {{output}}" })).id;

describe("tRPC and filters", () => {
  test("statusCode: 1e10 and other values no column can hold are 400", async () => {
    for (const filter of [{ statusCode: 1e10 }, { statusCode: -1 }, { model: long }, { completionId: long }, { from: "-200000-01-01T00:00:00Z" }]) {
      const r = await trpcQuery("logs.list", { filter });
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ error: { data: { code: "VALIDATION" } } });
    }
    expect((await trpcQuery("logs.list", { filter: { statusCode: 200 } })).status).toBe(200);
  });

  test("update-metadata past the tag caps is 400", async () => {
    const r = await api.fail("POST /logs/update-metadata", { body: { filters: [{ field: "model", equals: "x" }], metadata: { k: long } } });
    expect(r.status).toBe(400);
  });
});

test("nothing above lost what was stored before", async () => {
  const logs = await logsOf(t);
  expect(logs.length).toBeGreaterThanOrEqual(3);
  expect(t.logLines.filter((l) => l.includes('"level":"error"'))).toEqual([]);
});
