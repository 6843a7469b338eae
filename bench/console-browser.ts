// The console in Chromium on a large project (Postgres): how soon the Logs page shows its first
// rows, how long a filter change takes (from the click to the matching rows, timed in the page),
// and whether a 10,000-entry dataset table scrolls without long tasks. A real server process, a
// fresh database, Debian's Chromium through playwright-core.
//
//   bun bench/console-browser.ts [--logs 1000000] [--entries 10000] [--runs 10] [--filters 30]
//
// The database server is DATABASE_URL's (default postgres://postgres@127.0.0.1:5432/postgres); a
// fresh database is created on it and dropped at the end. Logs are seeded in SQL
// (bench/seed-logs.ts: 30 days, 20 models, bodies of 1-2 KB, previews); entries through the API.
import { parseArgs } from "node:util";
import type { Page } from "playwright-core";
import postgres from "postgres";
import { launchBrowser, signIn, startHone } from "../test/browser/harness";
import { fmt } from "./lib";
import { seedLogs } from "./seed-logs";

const { values } = parseArgs({
  options: {
    logs: { type: "string", default: "1000000" },
    entries: { type: "string", default: "10000" },
    runs: { type: "string", default: "10" },
    filters: { type: "string", default: "30" },
  },
});
const N = Number(values.logs);
const ENTRIES = Number(values.entries);
const RUNS = Number(values.runs);
const FILTERS = Number(values.filters);
process.env.DATABASE_URL ??= "postgres://postgres@127.0.0.1:5432/postgres";

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))]!;
};
const ROWS = 'table[aria-label="Request logs"] tr[data-log-id]';

const hone = await startHone({ seed: 0 });
const browser = await launchBrowser();
const sql = postgres(hone.databaseUrl!, { max: 1, onnotice: () => {} });
try {
  await seedLogs(sql, hone.project.id, N);

  // ---- Logs page, cold: a fresh browser profile with an empty cache, navigating to /logs ----
  const firstRows: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const context = await browser.newContext();
    const page = await context.newPage();
    await signIn(page, `${hone.url}/datasets`, hone.project.apiKey);
    const cdp = await context.newCDPSession(page);
    await cdp.send("Network.clearBrowserCache");
    const t0 = performance.now();
    await page.goto(`${hone.url}/logs`, { waitUntil: "commit" });
    await page.locator(ROWS).first().waitFor({ timeout: 30_000 });
    firstRows.push(performance.now() - t0);
    await context.close();
  }

  // ---- filter changes: click a model value in the table (filter by it), then clear the filter ----
  const page = await browser.newPage();
  await signIn(page, `${hone.url}/logs`, hone.project.apiKey);
  await page.locator(ROWS).first().waitFor({ timeout: 30_000 });
  const filterTimes: number[] = [];
  for (let i = 0; i < FILTERS; i++) {
    filterTimes.push(await filterByAModel(page, i));
    filterTimes.push(await clearFilters(page));
  }

  // ---- a 10,000-entry dataset table, scrolled to its end ----
  const dataset = await hone.trpc<{ id: string }>("datasets.create", { name: "scroll bench" }, { mutation: true });
  for (let lo = 0; lo < ENTRIES; lo += 100) {
    const entries = Array.from({ length: Math.min(100, ENTRIES - lo) }, (_, j) => ({
      messages: [
        { role: "system", content: "You are the support assistant of an online shop." },
        { role: "user", content: `Entry ${lo + j}: where is order #${(lo + j) * 7919}? ${"It should have arrived by now. ".repeat(1 + (j % 6))}` },
        { role: "assistant", content: `Order #${(lo + j) * 7919} is on its way. ${"We will keep you posted. ".repeat(1 + (j % 4))}` },
      ],
    }));
    const res = await fetch(`${hone.url}/api/v1/datasets/${dataset.id}/entries`, {
      method: "POST",
      headers: { authorization: `Bearer ${hone.project.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ entries }),
    });
    if (!res.ok) throw new Error(`adding entries answered ${res.status}: ${await res.text()}`);
  }
  const scroll = await scrollDataset(page, dataset.id);

  console.log(`\n| console, ${N.toLocaleString()} logs on Postgres, Chromium | runs | p50 ms | p95 ms | max ms |`);
  console.log("| --- | --- | --- | --- | --- |");
  console.log(
    `| Logs page, first rows after navigation (empty cache) | ${RUNS} | ${fmt(pct(firstRows, 0.5), 0)} | ${fmt(pct(firstRows, 0.95), 0)} | ${fmt(Math.max(...firstRows), 0)} |`,
  );
  console.log(
    `| filter change (click a model value / clear), until the rows shown match | ${filterTimes.length} | ${fmt(pct(filterTimes, 0.5), 0)} | ${fmt(pct(filterTimes, 0.95), 0)} | ${fmt(Math.max(...filterTimes), 0)} |`,
  );
  console.log(
    `\n${ENTRIES.toLocaleString()}-entry dataset table scrolled to its last row (mouse wheel, 400 px a step) in ${fmt(scroll.ms / 1000, 1)} s: ${scroll.rows.toLocaleString()} rows loaded, ` +
      `${scroll.frames} frames (${fmt(scroll.fps, 0)} fps), long tasks over 50 ms: ${scroll.longTasks.length}` +
      (scroll.longTasks.length ? ` (longest ${fmt(Math.max(...scroll.longTasks), 0)} ms)` : ""),
  );
} finally {
  await sql.end();
  await browser.close();
  await hone.stop();
}

/**
 * Clicks the model value of the i-th row (filtering by it) and returns the time, measured in the
 * page, from the click until every row shown has that model: what a person waits for, without
 * the driver's own checks before and after a click.
 */
async function filterByAModel(page: Page, i: number): Promise<number> {
  const cells = page.locator(`${ROWS} [data-filter-field="model"]`);
  const index = i % Math.min(20, await cells.count());
  return page.evaluate(
    ([rows, n]) =>
      new Promise<number>((resolve) => {
        const cell = document.querySelectorAll<HTMLElement>(`${rows} [data-filter-field="model"]`)[n]!;
        const model = cell.getAttribute("data-filter-value");
        const t0 = performance.now();
        cell.click();
        const check = () => {
          const shown = [...document.querySelectorAll(`${rows} [data-filter-field="model"]`)];
          if (shown.length > 0 && shown.every((c) => c.getAttribute("data-filter-value") === model)) resolve(performance.now() - t0);
          else requestAnimationFrame(check);
        };
        requestAnimationFrame(check);
      }),
    [ROWS, index] as const,
  );
}

/** Clicks "Clear all" and returns the time, in the page, until rows of more than one model are shown. */
async function clearFilters(page: Page): Promise<number> {
  return page.evaluate(
    (rows) =>
      new Promise<number>((resolve) => {
        const button = [...document.querySelectorAll<HTMLButtonElement>("button")].find((b) => b.textContent?.trim() === "Clear all")!;
        const t0 = performance.now();
        button.click();
        const check = () => {
          const models = new Set([...document.querySelectorAll(`${rows} [data-filter-field="model"]`)].map((c) => c.getAttribute("data-filter-value")));
          if (models.size > 1) resolve(performance.now() - t0);
          else requestAnimationFrame(check);
        };
        requestAnimationFrame(check);
      }),
    ROWS,
  );
}

/** Scrolls the entries table with the mouse wheel until its last row is loaded and shown. */
async function scrollDataset(page: Page, datasetId: string) {
  await page.goto(`${hone.url}/datasets/${datasetId}`);
  const scroller = page.getByTestId("entries-scroll");
  await page.getByTestId("entry-row").first().waitFor({ timeout: 30_000 });
  await page.evaluate(() => {
    const w = window as unknown as { __longTasks: number[]; __frames: number; __counting: boolean };
    w.__longTasks = [];
    w.__frames = 0;
    w.__counting = true;
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) w.__longTasks.push(e.duration);
    }).observe({ type: "longtask" });
    const tick = () => {
      w.__frames++;
      if (w.__counting) requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });
  const box = (await scroller.boundingBox())!;
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  const t0 = performance.now();
  const deadline = t0 + 180_000;
  const last = page.locator(`[data-testid="entry-row"][data-index="${ENTRIES - 1}"]`);
  while (performance.now() < deadline && !(await last.isVisible())) {
    await page.mouse.wheel(0, 400);
    await page.waitForTimeout(16);
  }
  const ms = performance.now() - t0;
  const out = await page.evaluate(() => {
    const w = window as unknown as { __longTasks: number[]; __frames: number; __counting: boolean };
    w.__counting = false;
    return {
      longTasks: w.__longTasks,
      frames: w.__frames,
      rows: Number(document.querySelector('table[aria-label="Dataset entries"]')?.getAttribute("aria-rowcount") ?? 1) - 1,
    };
  });
  if (!(await last.isVisible())) throw new Error(`the last entry was not reached in 180 s (${out.rows} rows loaded)`);
  return { ms, ...out, fps: out.frames / (ms / 1000) };
}
