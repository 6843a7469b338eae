import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import {
  a11yViolations,
  type Browser,
  type Hone,
  launchBrowser,
  setColorScheme,
  shot,
  signIn,
  startHone,
  closeAll,
  waitForLogs as waitForLogsOf,
} from "./harness";
import { installJudges, prompt } from "./judges";

// The logs as a daily tool: Hone's own calls kept apart, calls dated by when they were made,
// previews with the search marked, filters from a click (and "is not"), the keyboard, the drawer's
// links, a narrow window, and no serious accessibility problem in either theme.
let hone: Hone;
let browser: Browser;
let page: Page;
/** The gateway call judged with op-criteria, and its judge's own call. */
let judgedId: string;
let judgeId: string;
/** A call reported three days after it was made. */
let oldId: string;
let oldAt: number;
const DAY = 86_400_000;

const waitForLogs = (filter: Record<string, unknown>, n: number) => waitForLogsOf(hone, filter, n);

async function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${hone.url}/api/v1${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${hone.project.apiKey}`, "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${text}`);
  return text;
}

beforeAll(async () => {
  [hone, browser] = await Promise.all([startHone({ seed: 60 }), launchBrowser()]);
  installJudges(hone.openai);
  // A call made three days ago, reported now.
  oldAt = Date.now() - 3 * DAY;
  await post("/report", {
    requestedAt: oldAt,
    receivedAt: oldAt + 700,
    statusCode: 200,
    reqPayload: { model: "gpt-4o-mini", messages: [{ role: "user", content: "A question from three days ago" }] },
    respPayload: {
      id: "chatcmpl-three-days",
      object: "chat.completion",
      model: "gpt-4o-mini",
      choices: [{ index: 0, message: { role: "assistant", content: "An old answer" }, finish_reason: "stop" }],
      usage: { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 },
    },
    tags: { prompt_id: "old" },
  });
  oldId = (await waitForLogs({ completionId: "chatcmpl-three-days" }, 1))[0].id;
  // A gateway call judged by a criterion: its judge's call is one of Hone's own.
  const criterion = await hone.trpc<{ id: string }>(
    "criteria.create",
    { name: "helpful", judgeModel: "openai:gpt-4o-mini", prompt: prompt("v1") },
    { mutation: true },
  );
  await post(
    "/chat/completions",
    { model: "gpt-4o-mini", messages: [{ role: "user", content: "Please judge this refund question" }] },
    { "op-criteria": JSON.stringify([criterion.id]), "op-tags": JSON.stringify({ prompt_id: "judged" }) },
  );
  judgeId = (await waitForLogs({ internal: true, internalKind: "judge" }, 1))[0].id;
  judgedId = (await waitForLogs({ search: "Please judge this refund question", internal: false }, 1))[0].id;
  page = await browser.newPage();
  await signIn(page, hone.url, hone.project.apiKey);
}, 180_000);
afterAll(() => closeAll(browser, hone));

const table = () => page.getByRole("table", { name: "Request logs" });
const bodyRows = () => table().locator("tbody tr");
const row = (id: string) => table().locator(`tr[data-log-id="${id}"]`);
const searchParams = () => new URL(page.url()).searchParams;
const fmt = (n: number) => n.toLocaleString("en-US");
async function openLogs(search = "") {
  await page.goto(`${hone.url}/logs${search}`);
  await table().waitFor();
}
async function waitForCount(n: number) {
  const want = `${fmt(n)} call${n === 1 ? "" : "s"}`;
  await page
    .getByTestId("logs-count")
    .filter({ hasText: new RegExp(`^${want}( match the filters)?$`) })
    .waitFor();
}
/** How many logs the API says match (what the page must show). */
const apiCount = async (filter: Record<string, unknown>) => (await hone.trpc<{ count: number }>("logs.count", { filter })).count;
async function column(name: string): Promise<string[]> {
  return table()
    .locator(`tbody td[data-column="${name}"]`)
    .evaluateAll((cells) => cells.map((c) => (c.textContent ?? "").trim()));
}
/** Waits until the keyboard is on this log's row (focus moves a frame after a key). */
const expectFocusOn = (id: string) => page.waitForFunction((want) => document.activeElement?.getAttribute("data-log-id") === want, id, { timeout: 3000 });
async function pick(label: string, option: string) {
  await page.getByRole("combobox", { name: label }).click();
  await page.getByRole("option", { name: option, exact: true }).click();
}
async function moreFilters() {
  const more = page.getByRole("button", { name: /^More filters/ });
  if (await more.isVisible()) await more.click();
  await page.getByLabel("Status code").waitFor();
}
/** Month-day and time of day in the page's time zone, as the table's Requested column shows it. */
function shortTime(ms: number): string {
  const d = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}
/** The application's calls: the seed, the three-day-old report and the judged call. */
const APP = () => hone.seeded!.logs + 2;

describe("the logs as a daily tool", () => {
  test("Hone's own calls are hidden until asked for, then listed with their kind", async () => {
    const total = APP();
    await openLogs();
    await waitForCount(total);
    await row(judgedId).waitFor();
    expect(await row(judgeId).count()).toBe(0);
    expect(await column("source")).not.toContain("internal · judge");
    const toggle = page.getByRole("switch", { name: "Show Hone's own calls (judges, evaluations, playground)" });
    await toggle.check();
    await page.waitForURL(/internal=1/);
    await waitForCount(total + 1);
    // The judge's call is the newest: it ran while the judged call was answered.
    expect(await bodyRows().first().getAttribute("data-log-id")).toBe(judgeId);
    expect(await row(judgeId).locator('td[data-column="source"]').textContent()).toBe("internal · judge");
    await shot(page, "logs-internal-shown");
    // The drawer names it too; the link keeps the toggle.
    await row(judgeId).click();
    expect(await page.getByRole("dialog").getByTestId("detail-source").textContent()).toBe("internal · judge");
    await page.keyboard.press("Escape");
    await page.getByRole("dialog").waitFor({ state: "detached" });
    expect(searchParams().get("internal")).toBe("1");
    await page.reload();
    await waitForCount(total + 1);
    expect(await toggle.isChecked()).toBe(true);
    // The source filter offers Hone's own calls as a source.
    await pick("Source", "internal (Hone's own)");
    await waitForCount(1);
    await toggle.uncheck();
    // Filtering by the internal source lists them even with the toggle off.
    await waitForCount(1);
  });

  test("a call reported three days after it was made: below newer calls, in a range covering its day, in Usage on its day", async () => {
    await openLogs("?range=7d");
    await waitForCount(APP());
    const scroller = page.locator(".hone-logs-scroll");
    await page.getByText("End of the list").waitFor();
    await scroller.evaluate((el) => el.scrollTo(0, el.scrollHeight));
    await row(oldId).waitFor();
    // The oldest call is last, dated when it was made (not when it was reported).
    expect(await bodyRows().last().getAttribute("data-log-id")).toBe(oldId);
    expect(await row(oldId).locator('td[data-column="time"]').textContent()).toBe(shortTime(oldAt));
    // A range around its day holds it alone.
    const from = new Date(oldAt - DAY / 2).toISOString();
    const to = new Date(oldAt + DAY / 2).toISOString();
    await openLogs(`?range=custom&from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`);
    await waitForCount(1);
    expect(await bodyRows().first().getAttribute("data-log-id")).toBe(oldId);
    // The drawer shows when it was made and when it was logged, apart.
    await row(oldId).click();
    const drawer = page.getByRole("dialog");
    // Local time with the zone named (the browser's zone is this machine's, as here).
    const zone = (ms: number) =>
      new Intl.DateTimeFormat("en-US", { timeZoneName: "short" }).formatToParts(new Date(ms)).find((p) => p.type === "timeZoneName")?.value;
    const full = (ms: number) => `${new Date(ms).getFullYear()}-${shortTime(ms)} ${zone(ms)}`;
    expect(await drawer.getByTestId("fact-requested").textContent()).toBe(full(oldAt));
    expect(await drawer.getByTestId("fact-logged").textContent()).not.toBe(full(oldAt));
    expect(await drawer.getByText("when the call was made").count()).toBe(1);
    expect(await drawer.getByText("when Hone stored it").count()).toBe(1);
    await page.keyboard.press("Escape");

    // Usage counts it on its day (UTC), with the application's calls.
    const day = new Date(oldAt).toISOString().slice(0, 10);
    await page.goto(`${hone.url}/usage?range=custom&from=${day}&to=${day}`);
    await page.getByTestId("total-requests").filter({ hasText: /^1$/ }).waitFor();
    expect(Number(await page.getByTestId("own-requests").getAttribute("data-value"))).toBe(0);
  });

  test("Usage: the application's calls in the figures, Hone's own apart, and a group of their own by source", async () => {
    await page.goto(`${hone.url}/usage?range=7d`);
    await page.getByTestId("own-calls").waitFor();
    await page
      .getByTestId("total-requests")
      .filter({ hasText: new RegExp(`^${fmt(APP())}$`) })
      .waitFor();
    const judge = (await hone.trpc<any>("logs.get", { id: judgeId })) as { costUsd: number | null };
    expect(Number(await page.getByTestId("own-requests").getAttribute("data-value"))).toBe(1);
    expect(Number(await page.getByTestId("own-cost").getAttribute("data-value"))).toBeCloseTo(judge.costUsd ?? 0, 9);
    await pick("Split by", "Source");
    await page.waitForURL(/split=source/);
    const usageTable = page.getByTestId("usage-table");
    await usageTable.locator('tbody tr[data-group="internal"]').waitFor();
    expect(Number(await usageTable.locator('tbody tr[data-group="internal"] [data-col="requests"]').getAttribute("data-value"))).toBe(1);
    expect(Number(await usageTable.locator('tfoot [data-col="requests"]').getAttribute("data-value"))).toBe(APP() + 1);
    // The figures above stay the application's.
    expect(Number(await page.getByTestId("total-requests").getAttribute("data-value"))).toBe(APP());
    await shot(page, "usage-own-calls");
    // The card's link lists them.
    await page.getByRole("link", { name: "See them in the logs" }).click();
    await table().waitFor();
    await waitForCount(1);
    expect(await bodyRows().first().getAttribute("data-log-id")).toBe(judgeId);
  });

  test("previews of input and output; the search term marked in them and in the conversation", async () => {
    await openLogs();
    const judged = row(judgedId);
    await judged.waitFor();
    const input = judged.locator('td[data-column="input"]');
    expect(await input.textContent()).toBe("Please judge this refund question");
    expect(await input.locator("[title]").first().getAttribute("title")).toBe("Please judge this refund question");
    expect(await judged.locator('td[data-column="output"]').textContent()).toContain("refund question");
    await page.getByLabel("Search").fill("refund");
    await waitForCount(1);
    expect(searchParams().get("q")).toBe("refund");
    expect(await input.locator("mark").allTextContents()).toEqual(["refund"]);
    expect(await judged.locator('td[data-column="output"] mark').allTextContents()).toEqual(["refund"]);
    await judged.click();
    const drawer = page.getByRole("dialog");
    await drawer.getByTestId("request-view").waitFor();
    expect(await drawer.getByTestId("request-view").locator("mark").allTextContents()).toEqual(["refund"]);
    expect(await drawer.getByTestId("response-view").locator("mark").allTextContents()).toEqual(["refund"]);
    await shot(page, "log-detail-search-marked");
    await page.keyboard.press("Escape");
  });

  test("click a value to filter by it, Alt+click or the row's menu to exclude it; chips undo", async () => {
    await openLogs();
    await waitForCount(APP());
    const model = "openai:gpt-4o";
    await table().locator(`button[data-filter-field="model"][data-filter-value="${model}"]`).first().click();
    await page.waitForURL(/model=/);
    expect(searchParams().get("model")).toBe(model);
    await waitForCount(await apiCount({ model, internal: false }));
    expect(new Set(await column("model"))).toEqual(new Set([model]));
    expect(await page.getByRole("combobox", { name: "Model" }).inputValue()).toBe(model);

    // Alt+click a status: everything but it.
    await table()
      .locator('button[data-filter-field="status"][data-filter-value="200"]')
      .first()
      .click({ modifiers: ["Alt"] });
    await page.waitForURL(/notStatus=200/);
    await waitForCount(await apiCount({ model, not: { statusCode: 200 }, internal: false }));
    for (const st of await column("status")) expect(st).not.toBe("200");
    const chips = page.getByTestId("filter-chip");
    expect(await chips.allTextContents()).toEqual(["status is not 200"]);
    await shot(page, "logs-click-to-filter");
    await page.getByRole("button", { name: "Remove filter status is not 200" }).click();
    await waitForCount(await apiCount({ model, internal: false }));

    // The row's menu does the same for the keyboard and touch: exclude its source.
    await bodyRows()
      .first()
      .getByRole("button", { name: /^Filter by this log's values/ })
      .click();
    await page.getByRole("menuitem", { name: "Exclude source gateway" }).click();
    expect(searchParams().get("notSource")).toBe("gateway");
    await waitForCount(await apiCount({ model, not: { source: "gateway" }, internal: false }));
    expect(new Set(await column("source"))).not.toContain("gateway");
    // A tag value in a row: click to keep only it.
    const tag = table().locator('button[data-filter-field="tag"]').first();
    const pair = (await tag.getAttribute("data-filter-value"))!;
    await tag.click();
    const [k, v] = pair.split("=");
    await waitForCount(await apiCount({ model, not: { source: "gateway" }, tags: [{ key: k, equals: v }], internal: false }));
    expect(await chips.allTextContents()).toContain(`tag ${k} is ${v}`);
    // The link reproduces the view.
    const shared = page.url();
    await page.goto(shared);
    await waitForCount(await apiCount({ model, not: { source: "gateway" }, tags: [{ key: k, equals: v }], internal: false }));
    await page.getByRole("button", { name: "Clear all" }).click();
    await waitForCount(APP());
  });

  test("negative tag filters from the filter bar: is not, absent", async () => {
    await openLogs();
    await moreFilters();
    await page.getByRole("combobox", { name: "Tag key" }).fill("prompt_id");
    await pick("Tag match", "is not");
    await page.getByRole("combobox", { name: "Tag value" }).fill("p1");
    await page.getByRole("button", { name: "Add tag filter" }).click();
    await page.waitForURL(/notTag=/);
    const notP1 = { tagsNot: [{ key: "prompt_id", equals: "p1" }], internal: false };
    await waitForCount(await apiCount(notP1));
    for (const tags of await column("tags")) expect(tags).not.toContain("prompt_id=p1");
    await page.getByRole("combobox", { name: "Tag key" }).fill("user");
    await pick("Tag match", "is absent");
    expect(await page.getByRole("combobox", { name: "Tag value" }).count()).toBe(0);
    await page.getByRole("button", { name: "Add tag filter" }).click();
    const both = { ...notP1, tagsAbsent: ["user"] };
    const n = await apiCount(both);
    expect(n).toBeGreaterThan(0);
    await waitForCount(n);
    for (const tags of await column("tags")) expect(tags).not.toContain("user=");
    expect(await page.getByTestId("filter-chip").allTextContents()).toEqual(["tag prompt_id is not p1", "tag user is absent"]);
    await shot(page, "logs-negative-tags");
    // Shared as a link: the same rows and chips.
    await page.goto(page.url());
    await waitForCount(n);
    expect(await page.getByTestId("filter-chip").count()).toBe(2);
    await page.getByRole("button", { name: "Remove filter tag user is absent" }).click();
    await waitForCount(await apiCount(notP1));
    // The exclusion form: a model is not.
    await page.getByRole("combobox", { name: "Value to exclude" }).fill("openai:gpt-4o");
    await page.getByRole("button", { name: "Exclude", exact: true }).click();
    await waitForCount(await apiCount({ ...notP1, not: { model: "openai:gpt-4o" } }));
    expect(await page.getByTestId("filter-chip").allTextContents()).toContain("model is not openai:gpt-4o");
    await page.getByRole("button", { name: "Clear all" }).click();
    await waitForCount(APP());
  });

  test("the drawer: add this log to a dataset, open it in the playground", async () => {
    await page.goto(`${hone.url}/logs/${judgedId}`);
    const drawer = page.getByRole("dialog");
    await drawer.getByTestId("request-view").waitFor();
    await drawer.getByRole("button", { name: "Add to dataset" }).click();
    const modal = page.getByRole("dialog", { name: "Add to dataset" });
    await modal.getByLabel("Dataset").fill("From the drawer");
    await modal.getByRole("button", { name: "Create dataset and add" }).click();
    const result = modal.getByTestId("import-result");
    await result.waitFor();
    expect(await result.textContent()).toContain("1 entry created");
    const ds = (await hone.trpc<{ id: string; name: string }[]>("datasets.list")).find((d) => d.name === "From the drawer")!;
    expect(ds).toBeDefined();
    const entries = await hone.trpc<{ entries: any[] }>("datasets.listEntries", { datasetId: ds.id, first: 10 });
    expect(entries.entries).toHaveLength(1);
    await modal.getByRole("button", { name: "Done" }).click();
    // The drawer lists the entry it fed.
    await drawer.getByTestId("dataset-entries").filter({ hasText: "From the drawer" }).waitFor();
    await drawer.getByRole("link", { name: "Open in playground" }).click();
    await page.waitForURL((u) => u.pathname === "/playground");
    expect(searchParams().get("fromLog")).toBe(judgedId);
  });

  test("the keyboard: t focuses the table, j/k/arrows move, x selects, Enter opens, Esc returns to the row; ? lists it", async () => {
    await openLogs();
    await waitForCount(APP());
    const ids: string[] = await bodyRows().evaluateAll((rows) => rows.slice(0, 3).map((r) => r.getAttribute("data-log-id")!));
    await page.keyboard.press("t");
    await expectFocusOn(ids[0]!);
    await page.keyboard.press("j");
    await expectFocusOn(ids[1]!);
    await page.keyboard.press("ArrowDown");
    await expectFocusOn(ids[2]!);
    await page.keyboard.press("k");
    await expectFocusOn(ids[1]!);
    await page.keyboard.press("x");
    expect(await page.getByTestId("selection-count").textContent()).toBe("1 log selected");
    expect(await row(ids[1]!).getAttribute("aria-selected")).toBe("true");
    await page.keyboard.press("x");
    await page.getByTestId("selection-count").waitFor({ state: "detached" });
    await page.keyboard.press("Space");
    expect(await page.getByTestId("selection-count").textContent()).toBe("1 log selected");
    await page.keyboard.press("Space");
    await page.getByTestId("selection-count").waitFor({ state: "detached" });
    // One tab stop: the focused row.
    expect(await bodyRows().evaluateAll((rows) => rows.filter((r) => r.getAttribute("tabindex") === "0").length)).toBe(1);
    await page.keyboard.press("Enter");
    await page.waitForURL((u) => u.pathname === `/logs/${ids[1]}`);
    await page.getByRole("dialog").getByTestId("request-view").waitFor();
    await page.keyboard.press("Escape");
    await page.waitForURL((u) => u.pathname === "/logs");
    await page.getByRole("dialog").waitFor({ state: "detached" });
    await expectFocusOn(ids[1]!);
    // Closed with the mouse: back on the row too.
    await page.keyboard.press("Enter");
    await page.getByRole("dialog").getByTestId("request-view").waitFor();
    await page.getByRole("button", { name: "Close log" }).click();
    await expectFocusOn(ids[1]!);
    // f: the focused row's filter menu; Esc gives the keyboard back to the row.
    await page.keyboard.press("f");
    await page.getByRole("menu").waitFor();
    await page.keyboard.press("Escape");
    await page.getByRole("menu").waitFor({ state: "detached" });
    await expectFocusOn(ids[1]!);
    // Away from the table (in the search field, then out), t comes back to the same row.
    await page.getByLabel("Search").focus();
    await page.keyboard.press("Tab");
    await page.locator("body").click({ position: { x: 5, y: 700 } });
    await page.keyboard.press("t");
    await expectFocusOn(ids[1]!);
    // Enter and the arrows still work on the page's own controls.
    const more = page.getByRole("button", { name: /^(More|Fewer) filters/ });
    const expanded = await more.getAttribute("aria-expanded");
    await more.focus();
    await page.keyboard.press("Enter");
    await page.waitForFunction((was) => document.querySelector("[aria-controls='hone-more-filters']")?.getAttribute("aria-expanded") !== was, expanded);
    await page.keyboard.press("Enter");
    // ? lists the Logs shortcuts.
    await page.keyboard.press("?");
    const help = page.getByTestId("shortcut-help");
    await help.waitFor();
    const text = (await help.textContent()) ?? "";
    for (const label of [
      "Logs",
      "Focus the table",
      "Next row",
      "Previous row",
      "Open the focused row's log",
      "Select or unselect the focused row",
      "Filter by a value",
    ]) {
      expect(text).toContain(label);
    }
    await page.waitForTimeout(300); // the dialog's fade-in
    await shot(page, "logs-shortcuts-help");
    await page.keyboard.press("Escape");
    await help.waitFor({ state: "detached" });
  });

  test("a narrow window (800 px): the navigation behind the burger; status, latency and cost in view, no sideways scroll", async () => {
    await page.setViewportSize({ width: 800, height: 900 });
    try {
      await openLogs();
      await waitForCount(APP());
      await page.getByRole("button", { name: "Toggle navigation" }).waitFor();
      // Collapsed, the navigation is moved out of the window.
      const navShown = async () => {
        const box = await page.getByRole("navigation", { name: "Sections" }).boundingBox();
        return !!box && box.x + box.width > 0;
      };
      expect(await navShown()).toBe(false);
      for (const name of ["Status", "Latency", "Cost"]) {
        const box = (await table().getByRole("columnheader", { name, exact: true }).boundingBox())!;
        expect(box.x).toBeGreaterThanOrEqual(0);
        expect(box.x + box.width).toBeLessThanOrEqual(800);
      }
      const overflow = () => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(await overflow()).toBeLessThanOrEqual(0);
      // The table itself does not scroll sideways either: what does not fit is left out, and said so.
      expect(await page.locator(".hone-logs-scroll").evaluate((el) => el.scrollWidth - el.clientWidth)).toBeLessThanOrEqual(0);
      expect(await page.getByRole("button", { name: /^Columns \(\d+ left out\)/ }).count()).toBe(1);
      await shot(page, "logs-800");
      await page.goto(`${hone.url}/logs/${judgedId}`);
      await page.getByRole("dialog").getByTestId("request-view").waitFor();
      await shot(page, "log-detail-800");
      await page.keyboard.press("Escape");
      await page.getByRole("button", { name: "Toggle navigation" }).click();
      await page.waitForTimeout(400);
      expect(await navShown()).toBe(true);
      await page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name: "Usage" }).click();
      await page.getByTestId("own-calls").waitFor();
      await page.waitForTimeout(400); // the navigation's slide
      expect(await navShown()).toBe(false);
      expect(await overflow()).toBeLessThanOrEqual(0);
      await shot(page, "usage-800");
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  });

  test("no serious or critical accessibility problem on Logs (list, drawer) and Usage, light and dark", async () => {
    for (const scheme of ["light", "dark"] as const) {
      await openLogs("?internal=1&q=refund");
      await setColorScheme(page, scheme);
      await table().waitFor();
      await page.mouse.move(5, 700);
      expect({ scheme, page: "logs", violations: await a11yViolations(page) }).toEqual({ scheme, page: "logs", violations: [] });
      await moreFilters();
      await bodyRows()
        .first()
        .getByRole("button", { name: /^Filter by this log's values/ })
        .click();
      await page.getByRole("menu").waitFor();
      await page.waitForTimeout(300); // the menu's fade-in
      expect({ scheme, page: "logs with filters and a row menu", violations: await a11yViolations(page) }).toEqual({
        scheme,
        page: "logs with filters and a row menu",
        violations: [],
      });
      await shot(page, `logs-a11y-${scheme}`);
      await page.keyboard.press("Escape");
      await page.getByRole("menu").waitFor({ state: "detached" });
      await page.getByRole("button", { name: /^Columns/ }).click();
      await page.getByRole("menu").waitFor();
      await page.waitForTimeout(300); // the menu's fade-in
      expect({ scheme, page: "column chooser", violations: await a11yViolations(page) }).toEqual({ scheme, page: "column chooser", violations: [] });
      await page.keyboard.press("Escape");
      await page.goto(`${hone.url}/logs/${judgedId}?q=refund`);
      await page.getByRole("dialog").getByTestId("request-view").waitFor();
      expect({ scheme, page: "drawer", violations: await a11yViolations(page) }).toEqual({ scheme, page: "drawer", violations: [] });
      await shot(page, `log-detail-a11y-${scheme}`);
      await page.goto(`${hone.url}/usage?range=7d&split=source`);
      await page.getByTestId("usage-table").locator('tbody tr[data-group="internal"]').waitFor();
      await page.waitForTimeout(300);
      expect({ scheme, page: "usage", violations: await a11yViolations(page) }).toEqual({ scheme, page: "usage", violations: [] });
      await shot(page, `usage-a11y-${scheme}`);
    }
    await setColorScheme(page, "light");
  });
});
