import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { expectAccessible } from "./a11y";
import { type Browser, type Hone, launchBrowser, shot, startHone, signedInPage, closeAll } from "./harness";
import { installJudges, prompt } from "./judges";

// The criterion page after a new version (it shows the version just saved), the labeller's keys in
// the ? help, the input (conversation) and output of each disagreement and of each row fixed or
// broken between versions, plurals, and no serious axe violation on any of its views, light and dark.
//
// Rows as in criteria.browser.ts: row i says "bad" (i % 4 == 0), "meh" (i % 4 == 1) or "fine";
// you FAIL bad and meh, PASS fine. Rule v1 fails bad only (so it disagrees on every meh row);
// v2 fails bad and meh (it fixes every meh row).

let hone: Hone;
let browser: Browser;
let page: Page;
let criterionId = "";

const kind = (i: number) => (i % 4 === 0 ? "bad" : i % 4 === 1 ? "meh" : "fine");
const human = (i: number) => (kind(i) === "fine" ? "PASS" : "FAIL");
const line = (i: number, labelled: boolean) =>
  JSON.stringify({
    messages: [
      { role: "system", content: "You are a support agent." },
      { role: "user", content: `Question ${i}: how do I reset my password?` },
      { role: "assistant", content: `${kind(i)} answer number ${i}` },
    ],
    ...(labelled ? { judgement: human(i) } : {}),
  });

beforeAll(async () => {
  [hone, browser] = await Promise.all([startHone({ seed: 0, env: { HONE_JOB_POLL_MS: "50" } }), launchBrowser()]);
  installJudges(hone.openai);
  const c = await hone.trpc<{ id: string }>("criteria.create", { name: "Helpful", judgeModel: "gpt-4o-mini", prompt: prompt("v1") }, { mutation: true });
  criterionId = c.id;
  // 12 rows: 0-9 labelled, 10-11 not.
  await hone.trpc("criteria.importAlignmentSet", { criterionId, jsonl: Array.from({ length: 12 }, (_, i) => line(i, i < 10)).join("\n") }, { mutation: true });
  ({ page } = await signedInPage(browser, hone, { width: 1440, height: 900 }));
}, 180_000);
afterAll(() => closeAll(browser, hone));

describe("criteria", () => {
  test("after Save as v2 the page shows v2 (and says 2 versions); the list says so too", async () => {
    await page.goto(`${hone.url}/criteria/${criterionId}`);
    await page.getByText("1 version ·").waitFor();
    expect(await page.getByTestId("version-shown").textContent()).toStartWith("v1 saved");
    await page.getByRole("button", { name: "Edit (new version)" }).click();
    await page.getByRole("textbox", { name: "Prompt" }).fill(prompt("v2", "Is the answer helpful and certain?"));
    await page.getByRole("button", { name: "Save as v2" }).click();
    await page.getByText("Version 2 saved").waitFor();
    // No version picked by hand: the one just saved is shown, with its diff against v1.
    await page
      .getByTestId("version-shown")
      .filter({ hasText: /^v2 saved/ })
      .waitFor();
    expect(await page.getByRole("combobox", { name: /^Version/ }).inputValue()).toBe("v2 (latest)");
    expect((await page.getByTestId("version-diff").locator("ins").allTextContents()).join("")).toContain("and certain");
    await page.getByText("2 versions ·").waitFor();
    expect(await page.getByRole("heading", { name: "Try v2" }).count()).toBe(1);
    await shot(page, "criteria-follows-new-version");
    await page.goto(`${hone.url}/criteria`);
    expect(await page.getByTestId("criterion-row").textContent()).toContain("v2 (2 versions)");
  });

  test("the labeller's keys are listed under ? and still label", async () => {
    await page.goto(`${hone.url}/criteria/${criterionId}?tab=set`);
    const progress = page.getByTestId("label-progress");
    await progress.filter({ hasText: "10 of 12 labelled" }).waitFor();
    await page.keyboard.press("?");
    const help = page.getByTestId("shortcut-help");
    await help.waitFor();
    const text = (await help.textContent()) ?? "";
    expect(text).toContain("Labelling");
    for (const label of [
      "Label the row PASS, go to the next unlabelled one",
      "Label the row FAIL, go to the next unlabelled one",
      "Skip to the next row",
      "Undo the last label",
      "Next row",
      "Previous row",
    ])
      expect(text).toContain(label);
    await shot(page, "criteria-labelling-help");
    await page.keyboard.press("Escape");
    await help.waitFor({ state: "hidden" });
    const row = page.getByTestId("labelling-row");
    const current = Number(/answer number (\d+)/.exec((await row.getByTestId("judged-output").textContent()) ?? "")![1]);
    expect(current).toBe(10);
    await page.keyboard.press(human(10) === "PASS" ? "p" : "f");
    await progress.filter({ hasText: "11 of 12 labelled" }).waitFor();
    await page.keyboard.press("u");
    await progress.filter({ hasText: "10 of 12 labelled" }).waitFor();
  });

  test("disagreements and the rows fixed between versions show the conversation and the output", async () => {
    for (const version of [1, 2]) await hone.trpc("criteria.runAlignment", { criterionId, version }, { mutation: true });
    await page.goto(`${hone.url}/criteria/${criterionId}?tab=runs`);
    // v2 is shown (the last run): it agrees with every label.
    await page.getByText("The judge agrees with every label you gave.").waitFor();
    await page.getByRole("combobox", { name: /^Results of/ }).click();
    await page.getByRole("option", { name: "v1", exact: true }).click();
    const rows = page.getByTestId("disagreement");
    await rows.first().waitFor();
    // The meh rows among the labelled ones (1, 5, 9): you FAIL, v1 PASSes.
    expect(await rows.count()).toBe(3);
    const row5 = rows.filter({ hasText: "meh answer number 5" });
    expect(await row5.getByTestId("row-input").textContent()).toContain("user: Question 5: how do I reset my password?");
    expect(await row5.getByTestId("row-input").textContent()).toContain("system: You are a support agent.");
    expect(await row5.getByTestId("row-output").textContent()).toBe("meh answer number 5");
    expect(await row5.getByTestId("disagreement-you").textContent()).toBe("FAIL");
    expect(await row5.getByTestId("disagreement-judge").textContent()).toBe("PASS");
    expect(await row5.textContent()).toContain("rule v1: the output is acceptable.");
    // The whole row opens.
    await row5.getByRole("button", { name: /^Open disagreement/ }).click();
    await page.getByRole("dialog").getByTestId("judged-output").filter({ hasText: "meh answer number 5" }).waitFor();
    await page.keyboard.press("Escape");
    // v1 -> v2 fixes the three meh rows, and each shows its conversation too.
    expect(await page.getByTestId("fixed-broken").textContent()).toBe("From v1 to v2: 3 rows fixed, 0 rows broken");
    const fixed = page.locator('[data-testid="changed-row"][data-kind="fixed"]');
    expect(await fixed.count()).toBe(3);
    expect(await fixed.filter({ hasText: "meh answer number 9" }).getByTestId("row-input").textContent()).toContain("Question 9: how do I reset my password?");
    await shot(page, "criteria-disagreements-with-input");
  });

  test("no serious or critical axe violation on the list, the three tabs, the table view and the new-criterion form, light and dark", async () => {
    await page.goto(`${hone.url}/criteria`);
    await expectAccessible(page, "criteria-list-a11y", () => page.getByTestId("criterion-row").first().waitFor());
    await page.getByRole("button", { name: "New criterion" }).click();
    await page.getByRole("dialog").waitFor();
    await expectAccessible(page, "criteria-new-a11y", async () => {
      await page.getByRole("button", { name: "New criterion" }).click();
      await page.getByRole("dialog").getByRole("button", { name: "Create criterion" }).waitFor();
    });
    await page.goto(`${hone.url}/criteria/${criterionId}`);
    await expectAccessible(page, "criteria-prompt-a11y", () => page.getByTestId("version-diff").waitFor());
    await page.goto(`${hone.url}/criteria/${criterionId}?tab=set`);
    await expectAccessible(page, "criteria-labeller-a11y", () => page.getByTestId("labelling-row").waitFor());
    await page.goto(`${hone.url}/criteria/${criterionId}?tab=set&view=table`);
    await expectAccessible(page, "criteria-table-a11y", () => page.getByTestId("alignment-row").first().waitFor());
    await page.goto(`${hone.url}/criteria/${criterionId}?tab=runs`);
    await expectAccessible(page, "criteria-runs-a11y", () => page.getByTestId("compare-row").first().waitFor());
  }, 60_000);

  test("at 800 px wide no view scrolls the page sideways", async () => {
    await page.setViewportSize({ width: 800, height: 900 });
    for (const q of ["", "?tab=set", "?tab=set&view=table", "?tab=runs"]) {
      await page.goto(`${hone.url}/criteria/${criterionId}${q}`);
      await page.getByRole("tab", { name: "Alignment runs" }).waitFor();
      await page.waitForTimeout(300);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect({ q, overflow }).toEqual({ q, overflow: 0 });
    }
    await shot(page, "criteria-runs-narrow");
    await page.setViewportSize({ width: 1440, height: 900 });
  });
});
