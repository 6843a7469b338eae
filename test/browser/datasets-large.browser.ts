import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { BrowserContext, Page } from "playwright-core";
import { type Browser, type Hone, launchBrowser, shot, startHone, signedInPage, closeAll } from "./harness";

// A 10,000-entry dataset in the table: the page holds only the rows near the viewport however many
// are loaded, the next 100 come as the last loaded rows come into view, and scrolling keeps its
// frame rate (frames timed in the page while the wheel turns). "Select all 10,000" moves them all
// in batches on the server.

const N = 10_000;
let hone: Hone;
let browser: Browser;
let page: Page;
let context: BrowserContext;
let datasetId = "";

beforeAll(async () => {
  [hone, browser] = await Promise.all([startHone({ seed: 0 }), launchBrowser()]);
  datasetId = (await hone.trpc<{ id: string }>("datasets.create", { name: "ten thousand" }, { mutation: true })).id;
  const line = (i: number) =>
    JSON.stringify({
      messages: [
        { role: "system", content: "You label tickets." },
        { role: "user", content: `Ticket ${i}: the app crashes when I open settings number ${i % 97}` },
        { role: "assistant", content: `Label ${i % 5}: crash report ${i}` },
      ],
      split: "TRAIN",
    });
  for (let start = 0; start < N; start += 500) {
    const jsonl = Array.from({ length: 500 }, (_, k) => line(start + k)).join("\n");
    await hone.trpc("datasets.importJsonl", { datasetId, jsonl, firstLine: start + 1 }, { mutation: true });
  }
  ({ page, context } = await signedInPage(browser, hone));
}, 240_000);
afterAll(() => closeAll(browser, hone));

const rows = () => page.getByTestId("entry-row");
const lastRowIndex = () => rows().evaluateAll((els) => Math.max(...els.map((e) => Number(e.getAttribute("data-index")))));

describe("a 10,000-entry dataset", () => {
  test("scrolls smoothly: few rows in the page, the next pages loaded as it scrolls, frames on time", async () => {
    await page.goto(`${hone.url}/datasets/${datasetId}`);
    await page.getByTestId("entry-count").filter({ hasText: "10,000 entries match" }).waitFor();
    await rows().first().waitFor();
    await page.getByTestId("entries-scroll").hover();
    // Frame times while the wheel turns, measured in the page.
    await page.evaluate(() => {
      const w = window as unknown as { frames_: number[]; stop_: boolean };
      w.frames_ = [];
      w.stop_ = false;
      let last = performance.now();
      const tick = (t: number) => {
        w.frames_.push(t - last);
        last = t;
        if (!w.stop_) requestAnimationFrame(tick);
      };
      requestAnimationFrame(tick);
    });
    // The most rows the page held at once, watched in the page itself (no round trips while scrolling).
    await page.evaluate(() => {
      const w = window as unknown as { maxRows_: number };
      w.maxRows_ = 0;
      const watch = () => {
        w.maxRows_ = Math.max(w.maxRows_, document.querySelectorAll('[data-testid="entry-row"]').length);
        requestAnimationFrame(watch);
      };
      requestAnimationFrame(watch);
    });
    for (let i = 0; i < 40; i++) {
      for (let k = 0; k < 5; k++) {
        await page.mouse.wheel(0, 400);
        await page.waitForTimeout(16);
      }
      if ((await lastRowIndex()) >= 1_050) break;
    }
    const maxRowsInPage = await page.evaluate(() => (window as unknown as { maxRows_: number }).maxRows_);
    const frames = await page.evaluate(() => {
      const w = window as unknown as { frames_: number[]; stop_: boolean };
      w.stop_ = true;
      return w.frames_.slice(1);
    });
    // Past row 1,050: eleven pages of 100 were loaded one after another as the list scrolled.
    const last = await lastRowIndex();
    expect(last).toBeGreaterThanOrEqual(1_050);
    // The last row in the page shows its entry (however far past 1,050 a slow machine scrolled,
    // which unmounts row 1,050 itself).
    const lastText = await rows()
      .and(page.locator(`[data-index="${last}"]`))
      .textContent();
    expect(Number(/Ticket (\d+):/.exec(lastText ?? "")?.[1])).toBeGreaterThanOrEqual(1_000);
    // However many are loaded, the page holds only the rows near the viewport.
    expect(maxRowsInPage).toBeLessThan(80);
    const sorted = [...frames].sort((a, b) => a - b);
    const p95 = sorted[Math.floor(sorted.length * 0.95)]!;
    console.log(
      `frames: ${frames.length}, median ${sorted[Math.floor(sorted.length / 2)]!.toFixed(1)} ms, p95 ${p95.toFixed(1)} ms, max ${sorted.at(-1)!.toFixed(1)} ms`,
    );
    // Frames on time, with room for a loaded 2-core machine (Chromium, the server and the runner
    // share it; CI measured p95 67 ms once): the rows held in the page, checked above, are what
    // keeps scrolling smooth; this bound catches a page that stalls for several frames at a time.
    expect(p95).toBeLessThan(100);
    await shot(page, "dataset-10000-scrolled");
  }, 120_000);

  test("an entry has a link of its own: entry 5,000 opens from its URL though only the first page is loaded", async () => {
    const page1 = await hone.trpc<{ entries: { id: string }[]; endCursor: string }>("datasets.listEntries", { datasetId, first: 200 });
    let after: string | null = page1.endCursor;
    let id = "";
    for (let seen = 200; ; seen += 200) {
      const next: { entries: { id: string }[]; endCursor: string } = await hone.trpc("datasets.listEntries", { datasetId, first: 200, after });
      if (seen + 200 >= 5_000) {
        id = next.entries[5_000 - seen - 1]!.id;
        break;
      }
      after = next.endCursor;
    }
    await page.goto(`${hone.url}/datasets/${datasetId}?entry=${id}`);
    const drawer = page.getByTestId("entry-drawer");
    await drawer.getByText("Ticket 4999: the app crashes").waitFor();
    // Closing it takes the id out of the URL; opening a row puts that row's in.
    await page.keyboard.press("Escape");
    await drawer.waitFor({ state: "detached" });
    expect(new URL(page.url()).searchParams.get("entry")).toBeNull();
    await rows().nth(2).click();
    await drawer.getByText("Ticket 2: the app crashes").waitFor();
    const linked = new URL(page.url()).searchParams.get("entry");
    expect(linked).toMatch(/\S/);
    // The link opens the same entry in another tab.
    const other = await context.newPage();
    await other.goto(page.url());
    await other.getByTestId("entry-drawer").getByText("Ticket 2: the app crashes").waitFor();
    // An id that is not an entry of this dataset says so, in words.
    await other.goto(`${hone.url}/datasets/${datasetId}?entry=dse_nosuchentry`);
    await other.getByText("That entry is not in this dataset").waitFor();
    await other.close();
    await page.keyboard.press("Escape");
  }, 60_000);

  test("select all 10,000 and move them to TEST: done by the server in batches, counts exact", async () => {
    await page.getByRole("checkbox", { name: "Select all loaded entries" }).check();
    await page.getByTestId("bulk-bar").getByRole("button", { name: "Select all 10,000 entries" }).click();
    await page.getByTestId("selected-count").filter({ hasText: "All 10,000 entries of the dataset selected" }).waitFor();
    await page.getByTestId("bulk-bar").getByRole("button", { name: "Move to TEST" }).click();
    await page.getByTestId("dataset-counts").filter({ hasText: "10,000 entries · 0 train · 10,000 test" }).waitFor({ timeout: 30_000 });
    expect((await hone.trpc<{ count: number }>("datasets.countEntries", { datasetId, filter: { split: "TEST" } })).count).toBe(N);
  }, 60_000);
});
