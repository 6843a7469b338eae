import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTRPCClient, httpBatchStreamLink } from "@trpc/client";
import { systemCtx } from "../../src/domain/context";
import type { PlaygroundEvent } from "../../src/domain/completions";
import { setProviderKey } from "../../src/domain/projects";
import type { AppRouter } from "../../src/http/trpc/router";
import { createTestApp, type TestApp } from "../helpers/app";
import { createCriterion, createDataset } from "../helpers/factories";
import { startFakeOpenAI, type FakeUpstream } from "../helpers/fake-upstreams";
import { latestLog } from "../helpers/logs";
import { trpcFailure } from "../helpers/trpc";
import { waitFor } from "../helpers/wait-for";

const UPSTREAM_KEY = "sk-openai-test-key-playground";
let t: TestApp;
let fake: FakeUpstream;

beforeAll(async () => {
  fake = startFakeOpenAI({ apiKey: UPSTREAM_KEY });
  t = await createTestApp({ env: { OPENAI_BASE_URL: `${fake.url}/v1` } });
  await setProviderKey({ ...systemCtx(t.deps, "test"), projectId: t.project.projectId }, { provider: "openai", apiKey: UPSTREAM_KEY });
});
afterAll(async () => {
  await fake.stop();
  await t.close();
});

/** The console's link for streamed procedures, over app.handle. */
const client = (key = t.project.apiKey) =>
  createTRPCClient<AppRouter>({
    links: [
      httpBatchStreamLink({
        url: "http://localhost/trpc",
        headers: { authorization: `Bearer ${key}` },
        fetch: (url, init) => t.app.handle(new Request(url, init as RequestInit)),
      }),
    ],
  });

async function events<E extends Pick<PlaygroundEvent, "type">>(run: PromiseLike<AsyncIterable<E>>): Promise<E[]> {
  const out: E[] = [];
  for await (const e of await run) out.push(e);
  return out;
}

describe("playground.run", () => {
  test("streams deltas that add up to the final answer, logged and tagged as a playground call", async () => {
    const all = await events(client().playground.run.mutate({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hello playground" }] }));
    const deltas = all.filter((e) => e.type === "delta");
    const done = all.at(-1)!;
    expect(done.type).toBe("done");
    if (done.type !== "done") return;
    expect(deltas.length).toBeGreaterThan(0);
    const text = deltas.map((d) => (d.type === "delta" ? d.content : "")).join("");
    expect((done.choices[0]!.message as { content: string }).content).toBe(text);
    expect(text).toContain("hello playground");
    expect(done.usage?.completionTokens).toBeGreaterThan(0);
    const log = await waitFor(() => latestLog(t), { until: (l) => l?.completionId === done.completionId, message: "the playground call is logged" });
    expect(log!.tags["hone.source"]).toBe("playground");
    // Hone's own call, kept apart from the application's traffic.
    expect([log!.source, log!.internalKind]).toEqual(["internal", "playground"]);
  });

  test("with criteria: one judged answer, each choice with its criteria results, best first", async () => {
    const c = await createCriterion(t, { name: "not wrong", prompt: "Is it right? {{output}}" });
    const all = await events(
      client().playground.run.mutate({ model: "gpt-4o-mini", messages: [{ role: "user", content: "a judged question" }], n: 2, criteria: [c.id] }),
    );
    expect(all.map((e) => e.type)).toEqual(["done"]);
    const done = all[0]!;
    if (done.type !== "done") return;
    expect(done.choices).toHaveLength(2);
    for (const choice of done.choices) {
      expect(choice.criteriaResults).toEqual({ [c.id]: expect.objectContaining({ status: "success", score: 1 }) });
    }
  });

  test("an upstream or input error ends the run as an error event, not a failed request", async () => {
    const all = await events(client().playground.run.mutate({ model: "nope:model", messages: [{ role: "user", content: "x" }] }));
    expect(all).toHaveLength(1);
    expect(all[0]!.type).toBe("error");
    const bad = await trpcFailure(events(client().playground.run.mutate({ model: "gpt-4o-mini", messages: [], n: 9 })));
    expect(bad.data?.code).toBe("VALIDATION");
  });
});

describe("playground.saveEntry", () => {
  test("saves the conversation and the chosen output as one entry; another project's dataset is invisible", async () => {
    const datasetId = await createDataset(t, { name: "playground saves" });
    const messages = [
      { role: "user", content: "q" },
      { role: "assistant", content: "a" },
    ];
    expect(await client().playground.saveEntry.mutate({ datasetId, messages })).toMatchObject({ entriesCreated: 1 });
    const other = await t.createProject("other");
    expect((await trpcFailure(client(other.apiKey).playground.saveEntry.mutate({ datasetId, messages }))).data?.code).toBe("NOT_FOUND");
  });
});
