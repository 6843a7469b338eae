import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { type Browser, type Hone, launchBrowser, reportLog, shot, signIn, startHone, closeAll } from "./harness";

// A call whose payload was larger than the server keeps: the drawer says so (the log's warning),
// shows how the payload began and its full size, instead of a JSON dump of the marker.
let hone: Hone;
let browser: Browser;
let page: Page;
let logId: string;

beforeAll(async () => {
  [hone, browser] = await Promise.all([startHone({ seed: 0, env: { HONE_MAX_LOGGED_PAYLOAD_BYTES: "65536" } }), launchBrowser()]);
  const now = Date.now();
  logId = await reportLog(hone, {
    reqPayload: { model: "gpt-4o", messages: [{ role: "user", content: `Summarise this contract. ${"Clause. ".repeat(40_000)}` }] },
    respPayload: {
      id: "chatcmpl-large-log",
      object: "chat.completion",
      created: Math.floor(now / 1000),
      model: "gpt-4o",
      choices: [{ index: 0, message: { role: "assistant", content: "It is long." }, finish_reason: "stop" }],
      usage: { prompt_tokens: 80_000, completion_tokens: 4, total_tokens: 80_004 },
    },
  });
  page = await browser.newPage();
}, 120_000);
afterAll(() => closeAll(browser, hone));

describe("a log whose payload was cut short", () => {
  test("the drawer shows the warning, the size and the beginning; the response is whole", async () => {
    await signIn(page, hone.url, hone.project.apiKey);
    await page.goto(`${hone.url}/logs/${logId}`);
    const drawer = page.getByRole("dialog");
    await drawer.getByTestId("payload-cut-short").waitFor();
    expect(await drawer.getByTestId("log-warning").textContent()).toContain("stored cut short (HONE_MAX_LOGGED_PAYLOAD_BYTES is 65,536)");
    const cut = (await drawer.getByTestId("payload-cut-short").textContent()) ?? "";
    expect(cut).toMatch(/The request was 320,\d{3} bytes, more than the server keeps/);
    expect(cut).toContain("Summarise this contract.");
    expect(await drawer.getByTestId("response-view").textContent()).toContain("It is long.");
    // Tokens and cost are kept whole.
    expect(await drawer.textContent()).toContain("80,000");
    await shot(page, "log-payload-cut-short");
  }, 60_000);
});
