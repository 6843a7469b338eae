import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { waitFor } from "../helpers/wait-for";
import { type Browser, type Hone, closeAll, launchBrowser, OPENAI_KEY, shot, signedInPage, startHone } from "./harness";

// A model without a price (here one behind a custom provider, which Hone cannot price) is "no
// price" wherever a cost is shown: never $0, never starred as the cheapest in an evaluation's
// summary, and a route version's figures say so too.

let hone: Hone;
let browser: Browser;
let page: Page;
const UNPRICED = "hone:local/llama-3";

beforeAll(async () => {
  [hone, browser] = await Promise.all([startHone({ seed: 0, env: { HONE_ALLOW_PRIVATE_UPSTREAMS: "true" } }), launchBrowser()]);
  await hone.trpc("customProviders.create", { slug: "local", kind: "openai", baseUrl: `${hone.openai.url}/v1`, apiKey: OPENAI_KEY }, { mutation: true });
  ({ page } = await signedInPage(browser, hone));
}, 180_000);
afterAll(() => closeAll(browser, hone));

describe("a model without a price", () => {
  test("an evaluation's summary says no price for it and stars the cheapest priced model", async () => {
    const datasetId = (await hone.trpc<{ id: string }>("datasets.create", { name: "questions" }, { mutation: true })).id;
    const entries = [0, 1].map((i) => ({
      messages: [
        { role: "user", content: `Question ${i}` },
        { role: "assistant", content: `Answer ${i}` },
      ],
      split: "TEST",
    }));
    await hone.trpc("datasets.addEntries", { datasetId, entries }, { mutation: true });
    const crit = await hone.trpc<{ id: string }>(
      "criteria.create",
      { name: "Polite", judgeModel: "gpt-4o-mini", prompt: "Is this answer polite? {{output}}" },
      { mutation: true },
    );
    const ev = await hone.trpc<{ id: string }>(
      "evaluations.create",
      { datasetId, models: ["gpt-4o-mini", "gpt-4o", UNPRICED], criterionIds: [crit.id] },
      { mutation: true },
    );
    await waitFor(async () => (await hone.trpc<{ status: string }>("evaluations.get", { id: ev.id })).status === "DONE", { timeoutMs: 30_000 });
    await page.goto(`${hone.url}/evaluations/${ev.id}`);
    const row = (model: string) => page.locator(`[data-testid="summary-row"][data-model="${model}"]`);
    await row(UNPRICED).waitFor();
    const cells = async (model: string) => (await row(model).locator("td").allTextContents()).join(" | ");
    expect(await cells(UNPRICED)).toContain("no price");
    expect(await cells(UNPRICED)).not.toContain("$0");
    // The cheaper of the two priced models carries the star in the cost column; the unpriced one never.
    const costOf = async (model: string) => (await row(model).getByTestId("summary-cost").textContent())!;
    expect(await costOf("gpt-4o-mini")).toContain("★");
    expect(await costOf("gpt-4o")).not.toContain("★");
    expect(await costOf(UNPRICED)).toBe("no price");
    await shot(page, "evaluation-no-price");
  });

  test("a route version without a price: its cost is no price, the priced one's a sum", async () => {
    const groups = (local: number) => [
      {
        targets: [
          { model: UNPRICED, weight: local, version: "local" },
          { model: "gpt-4o-mini", weight: 100 - local, version: "mini" },
        ],
      },
    ];
    await hone.trpc("routes.create", { slug: "answers", groups: groups(100) }, { mutation: true });
    const call = () =>
      fetch(`${hone.url}/api/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${hone.project.apiKey}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "hone:answers", messages: [{ role: "user", content: "hi" }] }),
      });
    expect((await call()).status).toBe(200);
    await hone.trpc("routes.update", { slug: "answers", groups: groups(0) }, { mutation: true });
    expect((await call()).status).toBe(200);
    await page.goto(`${hone.url}/routes/answers`);
    const cost = (version: string) => page.locator(`tr[data-version="${version}"] [data-col="cost"]`);
    await waitFor(
      async () => {
        await page.reload();
        await cost("mini")
          .waitFor({ timeout: 2_000 })
          .catch(() => {});
        return (await cost("local").count()) > 0 && (await cost("mini").count()) > 0;
      },
      { timeoutMs: 15_000 },
    ).catch(async (e) => {
      await shot(page, "route-no-price-failed");
      throw e;
    });
    expect(await cost("local").textContent()).toBe("no price");
    expect(await cost("mini").textContent()).toMatch(/^\$\d/);
    await shot(page, "route-no-price");
  });

  test("Usage by model: a model's calls without a price are no price; a sum with some says how many", async () => {
    const direct = await fetch(`${hone.url}/api/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${hone.project.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ model: UNPRICED, messages: [{ role: "user", content: "hi" }] }),
    });
    expect(direct.status).toBe(200);
    await page.goto(`${hone.url}/usage?split=model`);
    const cost = (group: string) => page.locator(`[data-testid="usage-table"] tr[data-group="${group}"] [data-col="costUsd"]`);
    await waitFor(
      async () => {
        await page.reload();
        await cost(UNPRICED)
          .waitFor({ timeout: 2_000 })
          .catch(() => {});
        return (await cost(UNPRICED).count()) > 0;
      },
      { timeoutMs: 15_000 },
    );
    expect(await cost(UNPRICED).textContent()).toBe("no price");
    // The route's two calls: one priced (gpt-4o-mini), one not.
    expect(await cost("hone:answers").textContent()).toMatch(/^\$[\d.]+ \+ 1 without a price$/);
    expect(await cost("total").textContent()).toMatch(/^\$[\d.]+ \+ 2 without a price$/);
    await shot(page, "usage-no-price");
  });
});
