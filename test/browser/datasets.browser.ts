import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { type Browser, type Hone, launchBrowser, shot, startHone, signedInPage } from "./harness";

// The Datasets section: create, upload with bad lines, edit (as JSON) with a field error, delete
// and re-split, import logs by a tag with the preview count, export equal to the API's export.
// The table, bulk actions and form editor in depth: datasets-table.browser.ts.

let hone: Hone;
let browser: Browser;
let page: Page;
const dir = mkdtempSync(join(tmpdir(), "hone-datasets-browser-"));

beforeAll(async () => {
  [hone, browser] = await Promise.all([startHone({ seed: 120 }), launchBrowser()]);
  ({ page } = await signedInPage(browser, hone));
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await hone?.stop();
  rmSync(dir, { recursive: true, force: true });
});

type Dataset = { id: string; name: string; entryCount: number; trainCount: number; testCount: number };
type Entry = { id: string; split: string; messages: { role: string; content: string }[] };
const datasetNamed = async (name: string): Promise<Dataset> => (await hone.trpc<Dataset[]>("datasets.list")).find((d) => d.name === name)!;
const entriesOf = async (datasetId: string): Promise<Entry[]> =>
  (await hone.trpc<{ entries: Entry[] }>("datasets.listEntries", { datasetId, first: 200 })).entries;
const dialog = () => page.getByRole("dialog");
const qa = (q: string, a: string, split?: string) =>
  JSON.stringify({
    messages: [
      { role: "user", content: q },
      { role: "assistant", content: a },
    ],
    ...(split ? { split } : {}),
  });

let datasetId = "";

describe("datasets", () => {
  test("create a dataset from the list", async () => {
    await page.getByRole("link", { name: "Datasets", exact: true }).click();
    await page.getByRole("button", { name: "New dataset" }).click();
    await dialog().getByLabel("Dataset name").fill("support answers");
    await dialog().getByRole("button", { name: "Create dataset" }).click();
    await page.getByTestId("dataset-row-support answers").waitFor();
    datasetId = (await datasetNamed("support answers")).id;
    expect(datasetId).toStartWith("ds_");
  });

  test("the dataset page's actions stay where they are when the dataset arrives (a click aimed at one lands on it)", async () => {
    // The dataset's own query held back, as on a slow server: the page shows its actions first.
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const pattern = /\/trpc\/[^?]*datasets\.get/;
    await page.route(pattern, async (route) => {
      await held;
      await route.continue().catch(() => {});
    });
    try {
      await page.goto(`${hone.url}/datasets/${datasetId}`);
      const names = ["Add entry", "Upload JSONL", "Import from logs", "Judge / relabel", "Relabel runs", "Pruning rules", "Export JSONL", "Fine-tune"];
      const actions = page.getByTestId("dataset-actions");
      const boxes = async () =>
        Promise.all(
          names.map(async (n) => {
            const b = await actions.getByText(n, { exact: true }).boundingBox({ timeout: 2_000 });
            return { n, x: Math.round(b!.x), y: Math.round(b!.y) };
          }),
        );
      await actions.getByText("Pruning rules", { exact: true }).waitFor();
      // Every action is there before the dataset is (Fine-tune not yet usable).
      expect(await actions.getByText("Fine-tune", { exact: true }).count()).toBe(1);
      const before = await boxes();
      await shot(page, "dataset-loading");
      release();
      await page.getByTestId("dataset-counts").waitFor();
      expect(await boxes()).toEqual(before);
      await shot(page, "dataset-loaded");
    } finally {
      release();
      await page.unroute(pattern);
      // Back to the list, where the next test starts.
      await page.goto(`${hone.url}/datasets`);
      await page.getByTestId("dataset-row-support answers").waitFor();
    }
  });

  test("upload a JSONL with two bad lines: they are listed by number, the rest stored", async () => {
    const lines = [
      qa("Where is my order?", "Let me check.", "TRAIN"),
      qa("Can I get a refund?", "Yes, within 30 days.", "TRAIN"),
      "{not json",
      qa("Do you ship abroad?", "To 40 countries.", "TEST"),
      JSON.stringify({ messages: [{ role: "user", content: "no answer" }] }),
      qa("What are your hours?", "9 to 5.", "TRAIN"),
    ];
    const file = join(dir, "entries.jsonl");
    writeFileSync(file, `${lines.join("\n")}\n`);
    await page.getByTestId("dataset-row-support answers").getByRole("link").click();
    await page.getByRole("button", { name: "Upload JSONL" }).click();
    await dialog().getByLabel("JSONL file").setInputFiles(file);
    await dialog().getByTestId("upload-summary").waitFor();
    await page.waitForFunction(() => document.querySelector('[data-testid="upload-summary"]')?.textContent?.endsWith("."));
    expect(await dialog().getByTestId("upload-summary").textContent()).toContain("4 entries created; 2 lines refused");
    const refused = dialog().getByRole("table", { name: "Refused lines" });
    expect((await refused.locator("tbody tr td:first-child").allTextContents()).map(Number)).toEqual([3, 5]);
    await shot(page, "dataset-upload");
    await page.keyboard.press("Escape");
    const stored = await entriesOf(datasetId);
    expect(stored.map((e) => e.messages[0]!.content).sort()).toEqual([
      "Can I get a refund?",
      "Do you ship abroad?",
      "What are your hours?",
      "Where is my order?",
    ]);
    await page.getByTestId("dataset-counts").filter({ hasText: "4 entries · 3 train · 1 test" }).waitFor();
  });

  test("edit an entry: a bad edit shows its field error, a good one is what the API returns", async () => {
    await page.getByTestId("entry-row").filter({ hasText: "Can I get a refund?" }).click();
    await dialog().getByRole("button", { name: "Edit entry" }).click();
    await dialog().getByRole("button", { name: "Edit as JSON" }).click();
    const messages = dialog().getByLabel("Messages (JSON)");
    await messages.fill(JSON.stringify([{ role: "user", content: "Can I get a refund?" }], null, 2));
    await dialog().getByRole("button", { name: "Save entry" }).click();
    // The API's issue, under the Messages field it concerns.
    await dialog()
      .getByText(/messages?\.?0?:? ?.*must have role `assistant`/)
      .waitFor();
    await shot(page, "entry-editor");
    await messages.fill(
      JSON.stringify(
        [
          { role: "user", content: "Can I get a refund?" },
          { role: "assistant", content: "Yes, within 60 days." },
        ],
        null,
        2,
      ),
    );
    await dialog().getByRole("button", { name: "Save entry" }).click();
    await dialog().getByTestId("entry-editor").waitFor({ state: "detached" });
    await page.getByTestId("entry-row").filter({ hasText: "Yes, within 60 days." }).waitFor();
    await page.keyboard.press("Escape");
    const edited = (await entriesOf(datasetId)).find((e) => e.messages[0]!.content === "Can I get a refund?")!;
    expect(edited.messages[1]!.content).toBe("Yes, within 60 days.");
  });

  test("move entries to TEST and delete one: the counts follow", async () => {
    for (const q of ["Where is my order?", "What are your hours?"]) {
      await page.getByTestId("entry-row").filter({ hasText: q }).getByRole("checkbox").check();
    }
    await page.getByRole("button", { name: "Move to TEST" }).click();
    await page.getByTestId("dataset-counts").filter({ hasText: "4 entries · 1 train · 3 test" }).waitFor();
    await page.getByTestId("entry-row").filter({ hasText: "Do you ship abroad?" }).getByRole("checkbox").check();
    await page.getByRole("button", { name: "Delete", exact: true }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Delete entries" }).click();
    await page.getByTestId("dataset-counts").filter({ hasText: "3 entries · 1 train · 2 test" }).waitFor();
    const d = await datasetNamed("support answers");
    expect([d.entryCount, d.trainCount, d.testCount]).toEqual([3, 1, 2]);
    await page.getByRole("search", { name: "Entry filters" }).getByLabel("Split").first().click();
    await page.getByRole("option", { name: "TEST" }).click();
    await page.getByTestId("entry-count").filter({ hasText: "2 entries match" }).waitFor();
    expect(await page.getByTestId("entry-row").count()).toBe(2);
    await shot(page, "dataset-page");
    await page.goto(`${hone.url}/datasets/${datasetId}`);
  });

  test("import logs by a tag: the preview count is what gets imported", async () => {
    await page.getByRole("button", { name: "Import from logs" }).click();
    // The Logs page's own filter bar, in the dialog.
    await dialog().getByLabel("Tag key", { exact: true }).first().fill("prompt_id");
    await page.keyboard.press("Escape");
    await dialog().getByLabel("Tag value", { exact: true }).first().fill("p2");
    await page.keyboard.press("Escape");
    await dialog().getByRole("button", { name: "Add tag filter" }).click();
    const expected: { count: number } = await hone.trpc("logs.count", { filter: { tags: [{ key: "prompt_id", equals: "p2" }], statusCode: 200 } });
    expect(expected.count).toBeGreaterThan(0);
    await dialog()
      .getByTestId("import-preview")
      .filter({ hasText: `${expected.count} successful call${expected.count === 1 ? " matches" : "s match"}` })
      .waitFor();
    await shot(page, "dataset-import-logs");
    await dialog()
      .getByRole("button", { name: /^Import \d+ calls?$/ })
      .click();
    const result = await dialog().getByTestId("import-result").textContent();
    const created = Number(/(\d+) entr(?:y|ies) created/.exec(result ?? "")?.[1]);
    const skipped = Number(/(\d+) duplicates? skipped/.exec(result ?? "")?.[1]);
    const invalid = Number(/(\d+) invalid logs?/.exec(result ?? "")?.[1]);
    expect(created + skipped + invalid).toBe(expected.count);
    expect((await datasetNamed("support answers")).entryCount).toBe(3 + created);
    await page.keyboard.press("Escape");
  });

  test("export: the download equals the API's export", async () => {
    const download = page.waitForEvent("download");
    await page.getByRole("button", { name: "Export JSONL" }).click();
    const file = await (await download).path();
    const body = await Bun.file(file!).text();
    const api = await fetch(`${hone.url}/api/v1/datasets/${datasetId}/export`, { headers: { authorization: `Bearer ${hone.project.apiKey}` } });
    expect(api.status).toBe(200);
    expect(body).toBe(await api.text());
    expect(body.trim().split("\n").length).toBe((await datasetNamed("support answers")).entryCount);
  });

  test("a long dataset is virtualised and loads its next pages as you scroll", async () => {
    const big = await hone.trpc<{ id: string }>("datasets.create", { name: "long one" }, { mutation: true });
    for (let start = 0; start < 150; start += 50) {
      const entries = Array.from({ length: 50 }, (_, i) => JSON.parse(qa(`Long question ${start + i}`, `Long answer ${start + i}`)));
      await hone.trpc("datasets.addEntries", { datasetId: big.id, entries }, { mutation: true });
    }
    await page.goto(`${hone.url}/datasets/${big.id}`);
    await page.getByTestId("entry-count").filter({ hasText: "150 entries match" }).waitFor();
    await page.getByTestId("entry-row").first().waitFor();
    expect(await page.getByTestId("entry-row").count()).toBeLessThan(60);
    await page.getByTestId("entries-scroll").hover();
    // Entries come oldest first, 50 a page: the last one added is on the third page, reached by
    // scrolling alone; then the first is no longer in the page.
    expect(await page.getByText("Long question 149", { exact: true }).count()).toBe(0);
    for (let i = 0; i < 80 && (await page.getByText("Long question 149", { exact: true }).count()) === 0; i++) {
      await page.mouse.wheel(0, 4000);
      await page.waitForTimeout(100);
    }
    await page.getByText("Long question 149", { exact: true }).waitFor();
    expect(await page.getByText("Long question 0", { exact: true }).count()).toBe(0);
    expect(await page.getByTestId("entry-row").count()).toBeLessThan(60);
  });

  test("rename and delete from the list, with a confirmation naming what goes", async () => {
    await page.getByRole("link", { name: "Datasets", exact: true }).click();
    await page.getByTestId("dataset-row-support answers").getByRole("button", { name: "Rename" }).click();
    await dialog().getByLabel("Dataset name").fill("support v2");
    await dialog().getByRole("button", { name: "Rename" }).click();
    await page.getByTestId("dataset-row-support v2").waitFor();
    await shot(page, "datasets-list");
    await page.getByRole("button", { name: "Delete support v2" }).click();
    expect(await dialog().textContent()).toContain("support v2");
    await dialog().getByRole("button", { name: "Delete dataset" }).click();
    await page.getByTestId("dataset-row-support v2").waitFor({ state: "detached" });
    expect(await datasetNamed("support v2")).toBeUndefined();
  });
});
