import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { type Browser, type Hone, launchBrowser, shot, startHone, signedInPage, closeAll } from "./harness";

// The playground: two models side by side, streamed; then judged by two criteria (the fake judge
// fails a prompt that says "wrong"); the calls are logged with the playground tag; an output is
// saved as a dataset entry.

let hone: Hone;
let browser: Browser;
let page: Page;
let datasetId = "";
let criteria: { id: string; name: string }[] = [];

beforeAll(async () => {
  [hone, browser] = await Promise.all([startHone({ seed: 0 }), launchBrowser()]);
  criteria = [
    await hone.trpc("criteria.create", { name: "answers the question", judgeModel: "openai:judge", prompt: "Does it answer? {{output}}" }, { mutation: true }),
    await hone.trpc("criteria.create", { name: "never wrong", judgeModel: "openai:judge", prompt: "Is anything wrong here? {{output}}" }, { mutation: true }),
  ];
  datasetId = (await hone.trpc<{ id: string }>("datasets.create", { name: "playground picks" }, { mutation: true })).id;
  ({ page } = await signedInPage(browser, hone));
}, 180_000);
afterAll(() => closeAll(browser, hone));

describe("playground", () => {
  test("two models side by side, streamed into their columns", async () => {
    await page.getByRole("link", { name: "Playground", exact: true }).click();
    await shot(page, "playground-empty");
    await page.getByRole("button", { name: "Add a model" }).click();
    await page.getByLabel("Model 2", { exact: true }).first().fill("gpt-4o");
    await page.getByLabel("Message 2", { exact: true }).fill("compare me");
    await page.getByRole("button", { name: "Run" }).click();
    for (const i of [0, 1]) await page.getByTestId(`column-${i}`).getByText("echo: compare me").waitFor();
    for (const i of [0, 1]) await page.getByTestId(`column-${i}`).getByTestId("run-stats").getByText("open its log").waitFor();
    const stats = await page.getByTestId("column-0").getByTestId("run-stats").textContent();
    expect(stats).toMatch(/latency \d+/);
    expect(stats).toMatch(/tokens \d+ in \/ \d+ out/);
  });

  test("with two criteria: each choice shows both verdicts and the judge's explanation", async () => {
    await page.getByLabel("Criteria", { exact: true }).first().click({ force: true });
    for (const c of criteria) await page.getByRole("option", { name: c.name }).click();
    await page.keyboard.press("Escape");
    await page.getByRole("button", { name: "Run" }).click();
    for (const i of [0, 1]) {
      const results = page.getByTestId(`column-${i}`).getByTestId("criteria-results");
      await results.getByText("answers the question: PASS").waitFor();
      await results.getByText("never wrong: FAIL").waitFor();
    }
    await page.evaluate(() => window.scrollTo(0, 0));
    await shot(page, "playground-judged");
    const logged: { logs: { tags: Record<string, string>; model: string }[] } = await hone.trpc("logs.list", {
      filter: { tags: [{ key: "hone.source", equals: "playground" }] },
      first: 50,
    });
    // Models are stored as provider:model (a bare name is openai:).
    expect(logged.logs.map((l) => l.model).sort()).toEqual(["openai:gpt-4o", "openai:gpt-4o", "openai:gpt-4o-mini", "openai:gpt-4o-mini"]);
  });

  test("an output saved as a dataset entry is in the dataset", async () => {
    await page.getByLabel("Save outputs to dataset", { exact: true }).first().click();
    await page.getByRole("option", { name: "playground picks" }).click();
    await page.getByTestId("column-1").getByRole("button", { name: "Save as dataset entry" }).first().click();
    await page.getByText("Saved as a dataset entry").waitFor();
    const { entries } = await hone.trpc<{ entries: { messages: { role: string; content: string }[] }[] }>("datasets.listEntries", { datasetId });
    expect(entries).toHaveLength(1);
    expect(entries[0]!.messages.map((m) => m.role)).toEqual(["system", "user", "assistant"]);
    expect(entries[0]!.messages.at(-1)!.content).toBe("echo: compare me");
  });
});
