import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { expectAccessible } from "./a11y";
import { type Browser, type Hone, launchBrowser, reportLog, shot, startHone, signedInPage, closeAll } from "./harness";

// The playground's keyboard and links: Ctrl+Enter runs (also while typing in a message), the Run
// button stays in reach on a long form, `?fromLog=` fills the model and the conversation of a
// logged call (never its answer), `?model=` the first model; no serious axe violation in either
// theme, and a narrow window does not scroll sideways.

let hone: Hone;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  [hone, browser] = await Promise.all([startHone({ seed: 0 }), launchBrowser()]);
  ({ page } = await signedInPage(browser, hone, { width: 1440, height: 900 }));
}, 180_000);
afterAll(() => closeAll(browser, hone));

const messageBox = (n: number) => page.getByRole("textbox", { name: `Message ${n}`, exact: true });
const inViewport = async (name: string) => {
  const box = await page.getByRole("button", { name, exact: true }).boundingBox();
  const size = page.viewportSize()!;
  return box !== null && box.y >= 0 && box.y + box.height <= size.height && box.x >= 0 && box.x + box.width <= size.width;
};

describe("playground keys and links", () => {
  test("Ctrl+Enter runs while typing in a message; the ? help lists it", async () => {
    await page.goto(`${hone.url}/playground`);
    await messageBox(2).fill("run me by keyboard");
    await messageBox(2).press("Control+Enter");
    await page.getByTestId("column-0").getByText("echo: run me by keyboard").waitFor();
    // The key did not type a line break into the message.
    expect(await messageBox(2).inputValue()).toBe("run me by keyboard");
    // Outside a field too.
    await page.locator("h2", { hasText: "Playground" }).click();
    await messageBox(2).fill("and again");
    await page.locator("body").click({ position: { x: 5, y: 300 } });
    await page.keyboard.press("Control+Enter");
    await page.getByTestId("column-0").getByText("echo: and again").waitFor();
    await page.keyboard.press("?");
    const help = page.getByTestId("shortcut-help");
    await help.waitFor();
    expect(await help.textContent()).toContain("Run on every model (also while typing)");
    await page.keyboard.press("Escape");
  });

  test("on a long conversation at 1440x900 the Run button stays in the window", async () => {
    for (let i = 0; i < 10; i++) await page.getByRole("button", { name: "Add a message" }).click();
    for (let i = 3; i <= 12; i++) await messageBox(i).fill(`line ${i}\n`.repeat(4));
    for (const y of [0, 600, 1200, 100_000]) {
      await page.evaluate((top) => window.scrollTo(0, top), y);
      await page.waitForTimeout(50);
      expect(await inViewport("Run")).toBe(true);
    }
    await page.evaluate(() => window.scrollTo(0, 400));
    await shot(page, "playground-run-bar");
  });

  test("?fromLog= fills the model and the conversation of a logged call, without its answer", async () => {
    const logId = await reportLog(hone, {
      reqPayload: {
        model: "gpt-4o",
        temperature: 0.3,
        messages: [
          { role: "system", content: "You are a terse support agent." },
          { role: "user", content: "My order is late." },
          { role: "assistant", content: "Which order number?" },
          { role: "user", content: "Order 77, please check it." },
        ],
      },
      respPayload: {
        id: "chatcmpl-prefill-1",
        object: "chat.completion",
        created: Math.floor(Date.now() / 1000),
        model: "gpt-4o",
        choices: [{ index: 0, message: { role: "assistant", content: "THE LOGGED ANSWER" }, finish_reason: "stop" }],
        usage: { prompt_tokens: 30, completion_tokens: 4, total_tokens: 34 },
      },
    });
    const log = await hone.trpc<{ model: string }>("logs.get", { id: logId });
    await page.goto(`${hone.url}/playground?fromLog=${logId}`);
    await page.getByTestId("prefilled-from").waitFor();
    expect(await page.getByRole("combobox", { name: "Model 1", exact: true }).inputValue()).toBe(log.model);
    expect(log.model).toBe("openai:gpt-4o");
    expect(await page.getByTestId("draft-message").count()).toBe(4);
    expect(await messageBox(1).inputValue()).toBe("You are a terse support agent.");
    expect(await messageBox(4).inputValue()).toBe("Order 77, please check it.");
    expect(await page.getByRole("combobox", { name: "Role of message 3" }).inputValue()).toBe("assistant");
    expect(await page.getByLabel("Temperature").inputValue()).toBe("0.3");
    expect(await page.locator("main").textContent()).not.toContain("THE LOGGED ANSWER");
    await shot(page, "playground-from-log");
    // And it runs as it stands.
    await page.getByRole("button", { name: "Run", exact: true }).click();
    await page.getByTestId("column-0").getByText("echo: Order 77, please check it.").waitFor();
  });

  test("?model= sets the first model; an unknown log says so", async () => {
    await page.goto(`${hone.url}/playground?model=${encodeURIComponent("anthropic:claude-3-5-haiku-latest")}`);
    await page.getByRole("textbox", { name: "Message 2", exact: true }).waitFor();
    expect(await page.getByRole("combobox", { name: "Model 1", exact: true }).inputValue()).toBe("anthropic:claude-3-5-haiku-latest");
    await page.goto(`${hone.url}/playground?fromLog=log_doesnotexist`);
    await page.getByText("Log log_doesnotexist could not be loaded").waitFor();
  });

  test("no serious or critical axe violation, light and dark", async () => {
    await hone.trpc("criteria.create", { name: "answers the question", judgeModel: "openai:judge", prompt: "Does it answer? {{output}}" }, { mutation: true });
    await page.goto(`${hone.url}/playground?model=gpt-4o`);
    // With an answer on screen, judged by a criterion (its verdict badge) and its run's figures.
    await expectAccessible(page, "playground-a11y", async () => {
      await messageBox(2).fill("check my contrast");
      await page.getByLabel("Criteria", { exact: true }).first().click({ force: true });
      await page.getByRole("option", { name: "answers the question" }).click();
      await page.keyboard.press("Escape");
      await page.keyboard.press("Control+Enter");
      await page.getByTestId("column-0").getByTestId("criteria-results").waitFor();
      await page.getByTestId("column-0").getByText("open its log").waitFor();
    });
  });

  test("at 800 px wide the page does not scroll sideways and Run is reachable", async () => {
    await page.setViewportSize({ width: 800, height: 900 });
    await page.goto(`${hone.url}/playground`);
    await page.getByRole("button", { name: "Add a model" }).click();
    await page.getByRole("combobox", { name: "Model 2", exact: true }).fill("gpt-4o");
    await messageBox(2).fill("narrow");
    await page.keyboard.press("Control+Enter");
    await page.getByTestId("column-1").getByText("echo: narrow").waitFor();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    expect(await inViewport("Run")).toBe(true);
    await shot(page, "playground-narrow");
    await page.setViewportSize({ width: 1440, height: 900 });
  });
});
