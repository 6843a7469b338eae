import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { waitFor } from "../helpers/wait-for";
import { type Browser, type Hone, a11yViolations, launchBrowser, setColorScheme, shot, startHone, signedInPage, closeAll } from "./harness";
import { installJudges, prompt } from "./judges";

// The dataset page's dense table: previews, verdicts by name, the shared system prompt shown once,
// selection (shift ranges, "select all N matching" beyond the loaded rows) with the sticky bulk
// bar: re-split by ratio checked against the API's counts, delete; the per-message editor saving a
// tool call with the server's errors under their fields; the Fine-tune link; 800 px; axe.
//
// "triage" has 250 entries, all starting with the same system prompt: entry i asks about a refund
// when i % 5 < 3 (150 of them), else about shipping; every 10th answer is a tool call
// (lookup_order), the others text; answers with i % 7 == 0 say "bad" (the v1 judge fails them).

const SYSTEM = "You are Triage, the support desk's first responder. Answer in one sentence.";
const N = 250;
const refund = (i: number) => i % 5 < 3;
const entry = (i: number) => ({
  messages: [
    { role: "system", content: SYSTEM },
    { role: "user", content: refund(i) ? `Refund request ${i}: my parcel arrived broken` : `Shipping question ${i}: where is my parcel?` },
    i % 10 === 0
      ? {
          role: "assistant",
          content: null,
          tool_calls: [{ id: `call_${i}`, type: "function", function: { name: "lookup_order", arguments: `{"order":${i}}` } }],
        }
      : { role: "assistant", content: `${i % 7 === 0 ? "bad" : "good"} answer ${i}` },
  ],
  split: "TRAIN",
});

let hone: Hone;
let browser: Browser;
let page: Page;
let datasetId = "";

type Entry = { id: string; split: string; messages: { role: string; content: string | null; tool_calls?: any[] }[] };
const count = async (filter: object = {}) => (await hone.trpc<{ count: number }>("datasets.countEntries", { datasetId, filter })).count;
async function allEntries(): Promise<Entry[]> {
  const out: Entry[] = [];
  let after: string | null = null;
  for (;;) {
    const page: { entries: Entry[]; hasNextPage: boolean; endCursor: string | null } = await hone.trpc("datasets.listEntries", {
      datasetId,
      first: 200,
      after,
    });
    out.push(...page.entries);
    if (!page.hasNextPage) return out;
    after = page.endCursor;
  }
}
const dialog = () => page.getByRole("dialog");
const bulkBar = () => page.getByTestId("bulk-bar");
const rows = () => page.getByTestId("entry-row");

beforeAll(async () => {
  [hone, browser] = await Promise.all([startHone({ seed: 0, env: { HONE_JOB_POLL_MS: "50" } }), launchBrowser()]);
  installJudges(hone.openai);
  datasetId = (await hone.trpc<{ id: string }>("datasets.create", { name: "triage" }, { mutation: true })).id;
  for (let i = 0; i < N; i += 100) {
    const entries = Array.from({ length: Math.min(100, N - i) }, (_, k) => entry(i + k));
    await hone.trpc("datasets.addEntries", { datasetId, entries }, { mutation: true });
  }
  const criterion = await hone.trpc<{ id: string }>(
    "criteria.create",
    { name: "No bad answers", judgeModel: "openai:judge", prompt: prompt("v1") },
    { mutation: true },
  );
  const task = await hone.trpc<{ id: string }>("datasets.judgeEntries", { datasetId, criterionId: criterion.id }, { mutation: true });
  await waitFor(async () => (await hone.trpc<{ status: string }>("datasets.task", { id: task.id })).status === "DONE", { timeoutMs: 60_000 });
  ({ page } = await signedInPage(browser, hone));
}, 180_000);
afterAll(() => closeAll(browser, hone));

describe("the dataset table", () => {
  test("rows: last user message, final answer or its tool calls, split, source, verdicts by criterion name; the system prompt once", async () => {
    await page.goto(`${hone.url}/datasets/${datasetId}`);
    await page
      .getByTestId("entry-count")
      .filter({ hasText: `${N} entries match` })
      .waitFor();
    await rows().first().waitFor();
    // Virtualised: far fewer rows in the page than loaded (100) or in the dataset (250).
    expect(await rows().count()).toBeLessThan(60);
    const first = rows().first();
    expect(await first.locator('[data-column="input"]').textContent()).toBe("Refund request 0: my parcel arrived broken");
    expect(await first.locator('[data-column="output"]').textContent()).toBe('callslookup_order({"order":0})');
    expect(await first.locator('[data-column="split"]').textContent()).toBe("TRAIN");
    expect(await first.locator('[data-column="source"]').textContent()).toBe("by hand / API");
    expect(await first.locator('[data-column="verdicts"]').textContent()).toBe("No bad answers: PASS");
    const second = rows().nth(1);
    expect(await second.locator('[data-column="output"]').textContent()).toBe("good answer 1");
    const seventh = rows().nth(7);
    expect(await seventh.locator('[data-column="verdicts"]').textContent()).toBe("No bad answers: FAIL");
    // The shared system prompt: once, above the table, and in no row.
    await page.getByTestId("shared-system-prompt").waitFor();
    expect(await page.getByTestId("shared-system-prompt").textContent()).toContain(SYSTEM);
    expect(await page.getByText(SYSTEM).count()).toBe(1);
    await shot(page, "dataset-table");
  });

  test("an open entry shows its card (the system prompt left out, said to be the shared one) beside the table", async () => {
    await rows().nth(7).click();
    const drawer = dialog();
    await drawer.getByTestId("entry").waitFor();
    expect(await drawer.getByTestId("message").count()).toBe(2);
    await drawer.getByTestId("system-shared-note").waitFor();
    expect(await drawer.getByText("No bad answers: FAIL").count()).toBe(1);
    expect(await page.getByText(SYSTEM).count()).toBe(1);
    await shot(page, "dataset-entry-open");
    await page.keyboard.press("Escape");
    await drawer.waitFor({ state: "detached" });
  });

  test("select all matching a filter (beyond the rows loaded), re-split 25%: the counts are the API's", async () => {
    await page.getByRole("textbox", { name: "Text" }).fill("refund");
    await page.getByTestId("entry-count").filter({ hasText: "150 entries match" }).waitFor();
    await page.getByRole("checkbox", { name: "Select all loaded entries" }).check();
    // 100 loaded of the 150 matching: the bar offers the rest.
    await bulkBar().getByTestId("selected-count").filter({ hasText: "100 selected" }).waitFor();
    await bulkBar().getByRole("button", { name: "Select all 150 matching" }).click();
    await bulkBar().getByTestId("selected-count").filter({ hasText: "All 150 entries matching selected" }).waitFor();
    // The bar stays in view while the table scrolls.
    await page.getByTestId("entries-scroll").hover();
    await page.mouse.wheel(0, 2500);
    await page.waitForTimeout(200);
    expect(await bulkBar().isVisible()).toBe(true);
    const box = (await bulkBar().boundingBox())!;
    expect(box.y).toBeGreaterThanOrEqual(0);
    expect(box.y + box.height).toBeLessThan(800);
    await bulkBar().getByRole("button", { name: "Re-split by ratio…" }).click();
    await dialog().getByLabel("Share to TEST (%)").fill("25");
    // round(0.25 x 150) = 38 (37.5 rounds up).
    await dialog().getByTestId("resplit-preview").filter({ hasText: "38 to TEST, 112 to TRAIN" }).waitFor();
    await shot(page, "dataset-resplit");
    await dialog().getByRole("button", { name: "Re-split" }).click();
    await dialog().waitFor({ state: "detached" });
    await page.getByTestId("dataset-counts").filter({ hasText: "250 entries · 212 train · 38 test" }).waitFor();
    expect(await count({ search: "refund", split: "TEST" })).toBe(38);
    expect(await count({ search: "refund", split: "TRAIN" })).toBe(112);
    // The others were not touched.
    expect(await count({ search: "shipping", split: "TEST" })).toBe(0);
    const all = await allEntries();
    expect(all.filter((e) => e.split === "TEST")).toHaveLength(38);
    expect(all.filter((e) => e.split === "TEST").every((e) => e.messages[1]!.content!.startsWith("Refund"))).toBe(true);
    expect(await bulkBar().count()).toBe(0);
  });

  test("shift-click selects a range; delete asks, then they are gone (counts as the API says)", async () => {
    await page.getByRole("textbox", { name: "Text" }).fill("");
    await page
      .getByTestId("entry-count")
      .filter({ hasText: `${N} entries match` })
      .waitFor();
    await page.getByTestId("entries-scroll").evaluate((el) => el.scrollTo(0, 0));
    const doomed = await Promise.all([1, 2, 3, 4, 5].map(async (i) => (await rows().nth(i).getAttribute("data-entry-id"))!));
    await rows().nth(1).getByRole("checkbox").check();
    await rows()
      .nth(5)
      .getByRole("checkbox")
      .click({ modifiers: ["Shift"] });
    await bulkBar().getByTestId("selected-count").filter({ hasText: "5 selected" }).waitFor();
    await bulkBar().getByRole("button", { name: "Delete", exact: true }).click();
    expect(await dialog().textContent()).toContain("Delete 5 entries?");
    await dialog().getByRole("button", { name: "Delete entries" }).click();
    await page.getByTestId("dataset-counts").filter({ hasText: "245 entries" }).waitFor();
    const left = await allEntries();
    expect(left).toHaveLength(245);
    expect(left.some((e) => doomed.includes(e.id))).toBe(false);
    expect(await count()).toBe(245);
  });

  test("keyboard: j and k move the row cursor, x selects, o opens; ? lists them", async () => {
    await page.getByTestId("entries-scroll").evaluate((el) => el.scrollTo(0, 0));
    await page.locator("body").click({ position: { x: 5, y: 5 } });
    await page.keyboard.press("j");
    await page.keyboard.press("j");
    await page.keyboard.press("k");
    await page.keyboard.press("j");
    const focused = () => page.evaluate(() => document.activeElement?.getAttribute("data-index"));
    await waitFor(async () => (await focused()) === "1");
    await page.keyboard.press("x");
    await bulkBar().getByTestId("selected-count").filter({ hasText: "1 selected" }).waitFor();
    expect(await rows().nth(1).getAttribute("aria-selected")).toBe("true");
    await page.keyboard.press("x");
    await bulkBar().waitFor({ state: "detached" });
    await page.keyboard.press("o");
    await dialog().getByTestId("entry").waitFor();
    expect(await dialog().getByTestId("entry").getAttribute("data-entry-id")).toBe(await rows().nth(1).getAttribute("data-entry-id"));
    await page.keyboard.press("Escape");
    await dialog().waitFor({ state: "detached" });
    await page.keyboard.press("?");
    const help = page.getByTestId("shortcut-help");
    await help.getByText("Dataset entries").waitFor();
    for (const label of ["Next entry", "Previous entry", "Select or unselect the entry", "Open the entry"]) await help.getByText(label).waitFor();
    await page.keyboard.press("Escape");
  });

  test("the form editor: a tool call added and saved is what the API returns; errors show under their fields", async () => {
    // Entry 9 (the 5th row now): a text answer.
    const row = rows().filter({ hasText: "Shipping question 9:" });
    await row.click();
    await dialog().getByRole("button", { name: "Edit entry" }).click();
    const editor = dialog().getByTestId("entry-editor");
    const answer = editor.getByTestId("message-form-2");
    expect(await answer.getByRole("textbox", { name: "Content" }).inputValue()).toBe("good answer 9");
    await answer.getByRole("button", { name: "Add tool call" }).click();
    const call = answer.getByTestId("tool-call-form-0");
    await call.getByLabel("Function name").fill("lookup_order");
    await call.getByLabel("Arguments (JSON)").fill('{"order": 9');
    await editor.getByRole("button", { name: "Save entry" }).click();
    // The form's own check: arguments must be JSON, said under that field.
    await call.getByText(/arguments: not valid JSON/).waitFor();
    await call.getByLabel("Arguments (JSON)").fill('{"order": 9}');
    // The server's check: the last message must be the assistant's; its error under that message's role.
    await editor.getByRole("button", { name: "Add a message" }).click();
    await page.getByRole("menuitem", { name: "user" }).click();
    await editor.getByTestId("message-form-3").getByRole("textbox", { name: "Content" }).fill("and one more thing");
    await editor.getByRole("button", { name: "Save entry" }).click();
    await editor
      .getByTestId("message-form-3")
      .getByText(/must have role `assistant`/)
      .waitFor();
    await shot(page, "entry-form-editor-error");
    await editor.getByTestId("message-form-3").getByRole("button", { name: "Remove message 4" }).click();
    await editor.getByRole("button", { name: "Save entry" }).click();
    await editor.waitFor({ state: "detached" });
    // The card shows the call; the row shows the answer and the call.
    await dialog().getByText("lookup_order").first().waitFor();
    await page.keyboard.press("Escape");
    await rows()
      .filter({ hasText: "Shipping question 9:" })
      .locator('[data-column="output"]')
      .filter({ hasText: 'good answer 9 · lookup_order({"order": 9})' })
      .waitFor();
    const saved = (await allEntries()).find((e) => e.messages[1]!.content!.startsWith("Shipping question 9:"))!;
    expect(saved.messages).toHaveLength(3);
    expect(saved.messages[2]).toMatchObject({
      role: "assistant",
      content: "good answer 9",
      tool_calls: [{ type: "function", function: { name: "lookup_order", arguments: '{"order": 9}' } }],
    });
  });

  test("a tool message: its call id and content in the form, reordering, and Edit as JSON showing the same", async () => {
    await rows().filter({ hasText: "Refund request 10:" }).click();
    await dialog().getByRole("button", { name: "Edit entry" }).click();
    const editor = dialog().getByTestId("entry-editor");
    // After the tool call (message 3): the tool's answer, then the assistant's final reply.
    await editor.getByRole("button", { name: "Add a message" }).click();
    await page.getByRole("menuitem", { name: "tool" }).click();
    const tool = editor.getByTestId("message-form-3");
    await tool.getByLabel("Tool call id").fill("call_10");
    await tool.getByRole("textbox", { name: "Content" }).fill('{"status":"shipped"}');
    await editor.getByRole("button", { name: "Add a message" }).click();
    await page.getByRole("menuitem", { name: "assistant" }).click();
    await editor.getByTestId("message-form-4").getByRole("textbox", { name: "Content" }).fill("It shipped; a refund is on its way.");
    // Moved up and back down: the order is the form's.
    await editor.getByTestId("message-form-4").getByRole("button", { name: "Move message 5 up" }).click();
    expect(await editor.getByTestId("message-form-3").getByRole("textbox", { name: "Content" }).inputValue()).toBe("It shipped; a refund is on its way.");
    await editor.getByTestId("message-form-3").getByRole("button", { name: "Move message 4 down" }).click();
    await editor.getByRole("button", { name: "Edit as JSON" }).click();
    const json = JSON.parse(await editor.getByLabel("Messages (JSON)").inputValue());
    expect(json.slice(3)).toEqual([
      { role: "tool", content: '{"status":"shipped"}', tool_call_id: "call_10" },
      { role: "assistant", content: "It shipped; a refund is on its way." },
    ]);
    await editor.getByRole("button", { name: "Edit as a form" }).click();
    await editor.getByRole("button", { name: "Save entry" }).click();
    await editor.waitFor({ state: "detached" });
    await page.keyboard.press("Escape");
    const saved = (await allEntries()).find((e) => e.messages[1]!.content!.startsWith("Refund request 10:"))!;
    expect(saved.messages.slice(3)).toEqual(json.slice(3));
  });

  test("Fine-tune opens the new fine-tune form with this dataset chosen", async () => {
    await page.getByRole("link", { name: "Fine-tune" }).click();
    await page.waitForURL((u) => u.pathname === "/models" && u.searchParams.get("new") === "1" && u.searchParams.get("datasetId") === datasetId);
    await dialog()
      .getByRole("combobox", { name: /^Dataset/ })
      .waitFor();
    await waitFor(async () =>
      (
        await dialog()
          .getByRole("combobox", { name: /^Dataset/ })
          .inputValue()
      ).startsWith("triage ("),
    );
    expect(
      await dialog()
        .getByRole("combobox", { name: /^Dataset/ })
        .inputValue(),
    ).toMatch(/^triage \(\d+ train entries\)$/);
    await shot(page, "models-create-prefilled");
    await dialog().getByRole("button", { name: "Cancel" }).click();
    await page.waitForURL((u) => u.pathname === "/models" && !u.searchParams.has("new"));
  });
});

describe("a narrow window and accessibility", () => {
  test("800 px: the datasets list and the dataset table fit, Delete and the bulk bar in view", async () => {
    await page.setViewportSize({ width: 800, height: 800 });
    const noOverflow = () => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
    await page.goto(`${hone.url}/datasets`);
    const del = page.getByRole("button", { name: "Delete triage" });
    await del.waitFor();
    expect(await noOverflow()).toBe(true);
    const delBox = (await del.boundingBox())!;
    expect(delBox.x + delBox.width).toBeLessThanOrEqual(800);
    await shot(page, "datasets-list-800");
    await page.goto(`${hone.url}/datasets/${datasetId}`);
    await rows().first().waitFor();
    await rows().nth(0).getByRole("checkbox").check();
    await bulkBar().waitFor();
    expect(await noOverflow()).toBe(true);
    for (const name of ["Move to TRAIN", "Move to TEST", "Re-split by ratio…", "Delete", "Clear selection"]) {
      const b = (await bulkBar().getByRole("button", { name, exact: true }).boundingBox())!;
      expect(b.x + b.width).toBeLessThanOrEqual(800);
    }
    expect(await rows().first().isVisible()).toBe(true);
    await shot(page, "dataset-table-800");
    await bulkBar().getByRole("button", { name: "Clear selection" }).click();
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  for (const scheme of ["light", "dark"] as const) {
    test(`no serious or critical axe violations (${scheme}): datasets list, dataset table, an open entry, the editor`, async () => {
      await page.goto(`${hone.url}/datasets`);
      await setColorScheme(page, scheme);
      await page.getByRole("button", { name: "Delete triage" }).waitFor();
      expect(await a11yViolations(page)).toEqual([]);
      await page.goto(`${hone.url}/datasets/${datasetId}`);
      await rows().first().waitFor();
      await rows().nth(0).getByRole("checkbox").check();
      await bulkBar().waitFor();
      expect(await a11yViolations(page)).toEqual([]);
      await shot(page, `dataset-table-${scheme}`);
      await rows().nth(2).click();
      await dialog().getByTestId("entry").waitFor();
      expect(await a11yViolations(page)).toEqual([]);
      await dialog().getByRole("button", { name: "Edit entry" }).click();
      await dialog().getByTestId("entry-editor").waitFor();
      expect(await a11yViolations(page)).toEqual([]);
      await shot(page, `dataset-editor-${scheme}`);
      await page.keyboard.press("Escape");
      await page.goto(`${hone.url}/datasets/${datasetId}?view=cards`);
      await page.getByTestId("entry").first().waitFor();
      expect(await a11yViolations(page)).toEqual([]);
    });
  }
});
