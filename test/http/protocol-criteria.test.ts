import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { createTestApp, serve, storeProviderKey, type TestApp } from "../helpers/app";
import { createCriterion } from "../helpers/factories";
import { type FakeUpstream, startFakeAnthropic, startFakeOpenAI } from "../helpers/fake-upstreams";
import { logsOf } from "../helpers/logs";

// op-criteria on /messages and /responses, natively passed (to Anthropic, to OpenAI) and translated:
// the answer judged in its chat form, its results as the answer's top-level criteria_results; a
// stream with op-criteria is refused before any upstream call, as on /chat/completions.

let t: TestApp;
let openaiFake: FakeUpstream;
let anthropicFake: FakeUpstream;
let server: { url: string; stop(): Promise<void> };
let anthropic: Anthropic;
let openai: OpenAI;
let judged: string[];

beforeAll(async () => {
  openaiFake = startFakeOpenAI({ apiKey: "sk-openai-criteria" });
  anthropicFake = startFakeAnthropic({ apiKey: "sk-ant-criteria" });
  t = await createTestApp({ env: { OPENAI_BASE_URL: `${openaiFake.url}/v1`, ANTHROPIC_BASE_URL: anthropicFake.url } });
  await storeProviderKey(t, "openai", "sk-openai-criteria");
  await storeProviderKey(t, "anthropic", "sk-ant-criteria");
  server = serve(t.app);
  anthropic = new Anthropic({ baseURL: `${server.url}/api`, apiKey: t.project.apiKey, maxRetries: 0 });
  openai = new OpenAI({ baseURL: `${server.url}/api/v1`, apiKey: t.project.apiKey, maxRetries: 0 });
  // The judge passes an answer that mentions "echo" and records what it was shown.
  openaiFake.judge = (prompt) => {
    judged.push(prompt);
    return /echo:/.test(prompt) ? { judgement: "PASS", explanation: "echoed" } : { judgement: "FAIL", explanation: "no echo" };
  };
});
afterAll(async () => {
  await server.stop();
  await openaiFake.stop();
  await anthropicFake.stop();
  await t.close();
});

const criteriaHeader = (...ids: string[]) => ({ headers: { "op-criteria": JSON.stringify(ids) } });
type Judged = { criteria_results?: Record<string, { status: string; score?: number; explanation?: string }> };

describe("op-criteria on /messages", () => {
  test("to Anthropic (passed through): the Message is judged; its results come with it and in its log", async () => {
    const c = await createCriterion(t, { judgeModel: "openai:judge-1", prompt: "Input: {{messages}}\nOutput: {{output}}" });
    judged = [];
    const msg = (await anthropic.messages.create(
      { model: "claude-sonnet-4-5", max_tokens: 64, messages: [{ role: "user", content: "Hello criteria" }] },
      criteriaHeader(c.id),
    )) as Anthropic.Message & Judged;
    expect(msg.content.some((b) => b.type === "text" && b.text.includes("echo: Hello criteria"))).toBe(true);
    expect(msg.criteria_results).toEqual({ [c.id]: { status: "success", score: 1, explanation: "echoed" } });
    // The judge read the conversation and the Message's text.
    expect(judged).toHaveLength(1);
    expect(judged[0]).toContain("Hello criteria");
    expect(judged[0]).toContain("echo: Hello criteria");
    // Logged with the results, as the client received it; the judge's own call is an internal one.
    const logs = await logsOf(t);
    const log = logs.findLast((l) => l.api === "messages")!;
    expect(log.completionId).toBe(msg.id);
    expect((log.body!.respPayloadOriginal as Judged).criteria_results).toEqual(msg.criteria_results);
    expect(logs.findLast((l) => l.source === "internal")?.internalKind).toBe("judge");
  });

  test("to OpenAI (translated): the results come on the Message too", async () => {
    const c = await createCriterion(t, { judgeModel: "openai:judge-1" });
    const msg = (await anthropic.messages.create(
      { model: "openai:gpt-4o-mini", max_tokens: 64, messages: [{ role: "user", content: "Translated criteria" }] },
      criteriaHeader(c.id),
    )) as Anthropic.Message & Judged;
    expect(msg.criteria_results?.[c.id]).toMatchObject({ status: "success", score: 1 });
  });

  test("streamed, or an unknown criterion: refused before Anthropic is called", async () => {
    const c = await createCriterion(t, { judgeModel: "openai:judge-1" });
    const before = anthropicFake.requests.length;
    const body = { model: "claude-sonnet-4-5", max_tokens: 64, messages: [{ role: "user" as const, content: "no" }] };
    const streamed = await anthropic.messages.create({ ...body, stream: true }, criteriaHeader(c.id)).then(
      () => null,
      (e: unknown) => e,
    );
    expect(streamed).toBeInstanceOf(Anthropic.BadRequestError);
    expect(String((streamed as Error).message)).toContain("cannot be used with stream: true on /messages");
    const unknown = await anthropic.messages.create(body, criteriaHeader("crit_missing")).then(
      () => null,
      (e: unknown) => e,
    );
    expect(unknown).toBeInstanceOf(Anthropic.NotFoundError);
    expect(anthropicFake.requests.length).toBe(before);
  });
});

describe("op-criteria on /responses", () => {
  test("to OpenAI (passed through): the Response is judged; its results come with it", async () => {
    const c = await createCriterion(t, { judgeModel: "openai:judge-1", prompt: "Output: {{output}}" });
    judged = [];
    const res = (await openai.responses.create({ model: "gpt-4o-mini", input: "Responses criteria" }, criteriaHeader(c.id))) as OpenAI.Responses.Response &
      Judged;
    expect(res.output_text).toContain("echo: Responses criteria");
    expect(res.criteria_results).toEqual({ [c.id]: { status: "success", score: 1, explanation: "echoed" } });
    expect(judged).toHaveLength(1);
    expect(judged[0]).toContain("echo: Responses criteria");
    // Kept as OpenAI answered it: the stored Response has no criteria results of Hone's.
    const stored = (await openai.responses.retrieve(res.id)) as OpenAI.Responses.Response & Judged;
    expect(stored.id).toBe(res.id);
    expect(stored.criteria_results).toBeUndefined();
  });

  test("to Anthropic (translated): a judge that fails says so per criterion, the answer still comes", async () => {
    const pass = await createCriterion(t, { judgeModel: "openai:judge-1" });
    const broken = await createCriterion(t, { judgeModel: "openai:error-503" });
    const res = (await openai.responses.create(
      { model: "anthropic:claude-sonnet-4-5", input: "Translated responses criteria" },
      criteriaHeader(pass.id, broken.id),
    )) as OpenAI.Responses.Response & Judged;
    expect(res.output_text).toContain("Translated responses criteria");
    expect(res.criteria_results?.[pass.id]).toMatchObject({ status: "success", score: 1 });
    expect(res.criteria_results?.[broken.id]).toMatchObject({ status: "error" });
  });

  test("streamed: refused before OpenAI is called", async () => {
    const c = await createCriterion(t, { judgeModel: "openai:judge-1" });
    const before = openaiFake.requests.length;
    const streamed = await openai.responses.create({ model: "gpt-4o-mini", input: "no", stream: true }, criteriaHeader(c.id)).then(
      () => null,
      (e: unknown) => e,
    );
    expect(streamed).toBeInstanceOf(OpenAI.BadRequestError);
    expect(String((streamed as Error).message)).toContain("cannot be used with stream: true on /responses");
    expect(openaiFake.requests.length).toBe(before);
  });
});
