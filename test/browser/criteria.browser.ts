import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { type Browser, type Hone, launchBrowser, shot, startHone, signedInPage, closeAll } from "./harness";
import { waitFor } from "../helpers/wait-for";
import { installJudges, prompt } from "./judges";

// Criteria and alignment in the console: create a criterion and a second version (its diff),
// import 40 alignment rows, label 10 by keyboard (with an undo), run both versions in the
// background, and read the precision, recall and F1 worked out by hand below, the confusion
// matrix, the disagreements with the judge's explanation, and the versions compared.
//
// Row i of the set: i % 4 == 0 says "bad" (you: FAIL), i % 4 == 1 says "meh" (you: FAIL below
// row 20, PASS from it), the others say "fine" (you: PASS, except rows 2 and 6: FAIL). Rows 0-24
// come labelled, 25-34 are labelled by keyboard, 35-39 stay unlabelled (judged, not counted).
// Rule v1 fails "bad"; rule v2 fails "bad" and "meh". FAIL is the positive class; over rows 0-34
// you FAIL 16 (9 bad, 5 meh, 2 fine) and PASS 19 (4 meh, 15 fine):
//   v1: TP 9, FP 0, FN 7, TN 19 -> precision 1.00, recall 9/16 = 0.56, F1 0.72
//   v2: TP 14, FP 4, FN 2, TN 15 -> precision 14/18 = 0.78, recall 14/16 = 0.88, F1 0.82
//   v1 -> v2: 5 rows fixed (meh, you FAIL), 4 broken (meh, you PASS).

let hone: Hone;
let browser: Browser;
let page: Page;

const kind = (i: number) => (i % 4 === 0 ? "bad" : i % 4 === 1 ? "meh" : "fine");
const human = (i: number) => (kind(i) === "bad" || (kind(i) === "meh" && i < 20) || i === 2 || i === 6 ? "FAIL" : "PASS");
const rowLine = (i: number, labelled: boolean) =>
  JSON.stringify({
    messages: [
      { role: "user", content: `Question ${i}: how do I reset my password?` },
      { role: "assistant", content: `${kind(i)} answer number ${i}` },
    ],
    ...(labelled ? { judgement: human(i) } : {}),
  });

beforeAll(async () => {
  [hone, browser] = await Promise.all([startHone({ seed: 0, env: { HONE_JOB_POLL_MS: "50" } }), launchBrowser()]);
  installJudges(hone.openai);
  ({ page } = await signedInPage(browser, hone));
}, 180_000);
afterAll(() => closeAll(browser, hone));

const dialog = () => page.getByRole("dialog");
const labelOf = async (rowId: string) => (await hone.trpc<any[]>("criteria.alignmentRows", { criterionId })).find((r) => r.id === rowId).judgement;
let criterionId = "";

describe("criteria", () => {
  test("create a criterion, refuse an unknown variable, save a second version and see the diff, try it", async () => {
    await page.getByRole("link", { name: "Criteria", exact: true }).click();
    await page.getByText("No criteria yet").waitFor();
    await page.getByRole("button", { name: "New criterion" }).click();
    await dialog().getByLabel("Name").fill("Helpful");
    await dialog().getByLabel("Judge model").fill("gpt-4o-mini");
    const promptBox = dialog().getByRole("textbox", { name: "Prompt" });
    // The editor refuses what the API refuses, before sending.
    await promptBox.fill("Is {{answer}} good?");
    await dialog().getByText("The prompt must use {{output}}").waitFor();
    await dialog().getByText("Unknown variable {{answer}}").waitFor();
    expect(await dialog().getByRole("button", { name: "Create criterion" }).isDisabled()).toBe(true);
    await promptBox.fill(prompt("v1"));
    expect(await dialog().getByTestId("prompt-variables").textContent()).toContain("{{output}} ✓ used");
    await dialog().getByRole("button", { name: "Create criterion" }).click();
    await page.waitForURL(/\/criteria\/crit_/);
    criterionId = page.url().split("/criteria/")[1]!.split("?")[0]!;
    await page.getByTestId("version-prompt").waitFor();

    await page.getByRole("button", { name: "Edit (new version)" }).click();
    await page.getByRole("textbox", { name: "Prompt" }).fill(prompt("v2", "Is the answer helpful and sure of itself?"));
    await page.getByRole("button", { name: "Save as v2" }).click();
    await page.getByText("Version 2 saved").waitFor();
    const c = await hone.trpc("criteria.get", { criterionId });
    expect(c.versions.map((v: any) => v.prompt)).toEqual([prompt("v1"), prompt("v2", "Is the answer helpful and sure of itself?")]);
    // The new version is shown with its diff against v1: what was removed and what was added.
    await page.getByRole("combobox", { name: /^Version/ }).click();
    await page.getByRole("option", { name: "v2 (latest)" }).click();
    const diff = page.getByTestId("version-diff");
    await diff.waitFor();
    expect(await diff.locator("del").allTextContents()).toEqual(expect.arrayContaining([expect.stringContaining("v1")]));
    expect((await diff.locator("ins").allTextContents()).join("")).toContain("and sure of itself");
    await shot(page, "criteria-version-diff");

    // Try it: the pasted output is judged by the shown version (v2 fails "meh").
    await page.getByRole("textbox", { name: /^Output to judge/ }).fill("meh, maybe restart it");
    await page.getByRole("button", { name: "Judge", exact: true }).click();
    const result = page.getByTestId("try-result");
    await result.waitFor();
    expect(await result.textContent()).toContain("FAIL");
    expect(await result.textContent()).toContain("rule v2: the output breaks the rule.");
    // The verdict stays beside what it judged only: another output, and it is put away.
    await page.getByRole("textbox", { name: /^Output to judge/ }).fill("a different answer");
    await result.waitFor({ state: "detached" });
  });

  test("import 40 rows (one bad line refused), label 10 by keyboard with an undo, review in the table", async () => {
    await page.getByRole("tab", { name: "Alignment set" }).click();
    await page.getByText("The alignment set is empty").waitFor();
    await page.getByRole("button", { name: "Add rows" }).click();
    // Rows 0-24 carry your label; 25-39 do not. Line 41 is not JSON.
    const lines = [...Array.from({ length: 40 }, (_, i) => rowLine(i, i < 25)), "{not json"];
    await dialog()
      .getByLabel("JSONL file")
      .setInputFiles({ name: "set.jsonl", mimeType: "application/jsonl", buffer: Buffer.from(lines.join("\n")) });
    await dialog().getByTestId("alignment-import-summary").filter({ hasText: "40 rows added; 1 line refused." }).waitFor();
    expect(await dialog().getByRole("table", { name: "Refused lines" }).textContent()).toContain("41");
    await page.keyboard.press("Escape");

    const row = page.getByTestId("labelling-row");
    const progress = page.getByTestId("label-progress");
    await progress.filter({ hasText: "25 of 40 labelled" }).waitFor();
    expect(await progress.textContent()).toContain("label at least 30");
    const current = async () => {
      const text = (await row.getByTestId("judged-output").textContent()) ?? "";
      return Number(/answer number (\d+)/.exec(text)![1]);
    };
    // A wrong label, undone: the row comes back unlabelled.
    const first = await current();
    await page.keyboard.press(human(first) === "PASS" ? "f" : "p");
    await progress.filter({ hasText: "26 of 40" }).waitFor();
    await page.keyboard.press("u");
    await progress.filter({ hasText: "25 of 40" }).waitFor();
    expect(await current()).toBe(first);
    await shot(page, "criteria-labelling");
    for (let n = 0; n < 10; n++) {
      const i = await current();
      expect(i).toBe(25 + n);
      await page.keyboard.press(human(i) === "PASS" ? "p" : "f");
      await progress.filter({ hasText: `${26 + n} of 40 labelled` }).waitFor();
    }
    expect(await progress.textContent()).toContain("enough for meaningful statistics");
    // The labels are saved one after another; the last may still be on its way.
    const expected = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [i, i < 35 ? human(i) : null]));
    let rows: any[] = [];
    const labelsNow = async () => {
      rows = await hone.trpc<any[]>("criteria.alignmentRows", { criterionId });
      return Object.fromEntries(rows.map((r) => [Number(/answer number (\d+)/.exec(r.output.content)![1]), r.judgement]));
    };
    await waitFor(async () => JSON.stringify(await labelsNow()) === JSON.stringify(expected)).catch(() => {});
    expect(await labelsNow()).toEqual(expected);

    // The table view: change a label and change it back, checked through the API.
    await page.getByText("Review all").click();
    const table = page.getByRole("table", { name: "Alignment rows" });
    await table.waitFor();
    expect(await table.getByTestId("alignment-row").count()).toBe(40);
    const target = rows.find((r) => r.output.content === "fine answer number 3")!;
    const tr = table.locator(`[data-row-id="${target.id}"]`);
    await tr.getByText("FAIL", { exact: true }).click();
    await waitFor(async () => (await labelOf(target.id)) === "FAIL");
    await tr.getByText("PASS", { exact: true }).click();
    await waitFor(async () => (await labelOf(target.id)) === "PASS");
    await shot(page, "criteria-alignment-table");
  });

  test("run v1 and v2 in the background: precision, recall, F1, confusion matrix, disagreements, versions compared", async () => {
    await page.getByRole("tab", { name: "Alignment runs" }).click();
    const run = async (version: number, f1: string) => {
      await page.getByRole("combobox", { name: /^Run version/ }).click();
      await page.getByRole("option", { name: `v${version}`, exact: true }).click();
      await page.getByRole("button", { name: "Run against my labels" }).click();
      try {
        await page.getByTestId("metric-f1").filter({ hasText: f1 }).waitFor({ timeout: 30_000 });
      } catch (err) {
        console.error(await hone.trpc("criteria.alignmentTasks", { criterionId }), await page.locator("main").textContent());
        throw err;
      }
    };
    await run(1, "0.72");
    expect(await page.getByTestId("metric-precision").textContent()).toBe("1.00");
    expect(await page.getByTestId("metric-recall").textContent()).toBe("0.56");
    expect(await page.getByTestId("cm-fn").textContent()).toContain("7");
    expect(await page.getByTestId("disagreement").count()).toBe(7);

    await run(2, "0.82");
    expect(await page.getByTestId("metric-precision").textContent()).toBe("0.78");
    expect(await page.getByTestId("metric-recall").textContent()).toBe("0.88");
    expect(await page.getByTestId("metric-rows").textContent()).toBe("35");
    for (const [id, n] of [
      ["cm-tp", "14"],
      ["cm-fp", "4"],
      ["cm-fn", "2"],
      ["cm-tn", "15"],
    ])
      expect(await page.getByTestId(id!).textContent()).toStartWith(`${n} `);
    // The disagreements: the judge's explanation beside your label.
    const disagreements = page.getByTestId("disagreement");
    expect(await disagreements.count()).toBe(6);
    const mehPass = disagreements.filter({ hasText: "meh answer number 21" });
    expect(await mehPass.textContent()).toContain("PASS");
    expect(await mehPass.textContent()).toContain("rule v2: the output breaks the rule.");
    // Versions side by side: v2 has the best recall and F1, v1 the best precision; 5 rows fixed, 4 broken.
    expect(await page.getByTestId("compare-f1-v2").textContent()).toContain("★ best");
    expect(await page.getByTestId("compare-precision-v1").textContent()).toContain("★ best");
    expect(await page.getByTestId("fixed-broken").textContent()).toBe("From v1 to v2: 5 rows fixed, 4 rows broken");
    await shot(page, "criteria-alignment-runs");

    // The API agrees, and the runs were background tasks that reached DONE with full progress.
    const runs = await hone.trpc<any[]>("criteria.alignmentRuns", { criterionId });
    expect(runs.map((r) => [r.version, r.truePositives, r.falsePositives, r.falseNegatives, r.trueNegatives])).toEqual([
      [1, 9, 0, 7, 19],
      [2, 14, 4, 2, 15],
    ]);
    const tasks = await hone.trpc<any[]>("criteria.alignmentTasks", { criterionId });
    expect(tasks.map((t) => [t.version, t.status, t.progress])).toEqual([
      [2, "DONE", { done: 40, total: 40 }],
      [1, "DONE", { done: 40, total: 40 }],
    ]);
    // The list shows the last alignment's F1.
    await page.getByRole("link", { name: "Criteria", exact: true }).click();
    await page.getByTestId("criterion-f1").filter({ hasText: "0.82" }).waitFor();
    await shot(page, "criteria-list");
  });
});
