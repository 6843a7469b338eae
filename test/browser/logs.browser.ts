import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import type { Locator, Page } from "playwright-core";
import { ADMIN_TOKEN, type Browser, type Hone, launchBrowser, shot, signIn, startHone, closeAll, waitForLogs as waitForLogsOf } from "./harness";

// The Request logs section: the table, its filters (in the URL), a log's detail with its tags,
// bulk add to a dataset, JSONL export, the live tail and the empty state, against seeded calls.
let hone: Hone;
let browser: Browser;
let page: Page;
/** A reported call whose conversation holds a tool call, its result and an image. */
let toolLogId: string;

const PIXEL = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";

async function reportToolConversation(): Promise<string> {
  const now = Date.now();
  const res = await fetch(`${hone.url}/api/v1/report`, {
    method: "POST",
    headers: { authorization: `Bearer ${hone.project.apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({
      // Made after every seeded call (a log is dated by when its call was made).
      requestedAt: now - 1,
      receivedAt: now,
      statusCode: 200,
      reqPayload: {
        model: "gpt-4o",
        temperature: 0.2,
        messages: [
          { role: "system", content: "You look up orders." },
          {
            role: "user",
            content: [
              { type: "text", text: "Where is order 42? (photo attached)" },
              { type: "image_url", image_url: { url: PIXEL } },
            ],
          },
          {
            role: "assistant",
            content: null,
            tool_calls: [{ id: "call_abc123", type: "function", function: { name: "lookup_order", arguments: '{"q":"42"}' } }],
          },
          { role: "tool", tool_call_id: "call_abc123", content: '{"status":"shipped"}' },
        ],
        tools: [
          {
            type: "function",
            function: { name: "lookup_order", description: "Find an order", parameters: { type: "object", properties: { q: { type: "string" } } } },
          },
        ],
        response_format: { type: "text" },
      },
      respPayload: {
        id: "chatcmpl-browser-tool",
        object: "chat.completion",
        created: Math.floor(now / 1000),
        model: "gpt-4o",
        choices: [{ index: 0, message: { role: "assistant", content: "Order 42 has shipped." }, finish_reason: "stop" }],
        usage: { prompt_tokens: 50, completion_tokens: 6, total_tokens: 56 },
      },
      tags: { prompt_id: "tool-demo", user: "u-tool" },
    }),
  });
  expect(res.status).toBe(200);
  const found = await waitForLogs({ completionId: "chatcmpl-browser-tool" }, 1);
  return found[0].id;
}

const waitForLogs = (filter: Record<string, unknown>, n: number) => waitForLogsOf(hone, filter, n);

beforeAll(async () => {
  [hone, browser] = await Promise.all([startHone(), launchBrowser()]);
  toolLogId = await reportToolConversation();
  page = await browser.newPage();
  await signIn(page, hone.url, hone.project.apiKey);
}, 120_000);
afterAll(() => closeAll(browser, hone));

const fmt = (n: number) => n.toLocaleString("en-US");
async function waitForCount(n: number) {
  const want = `${fmt(n)} call${n === 1 ? "" : "s"}`;
  await page
    .getByTestId("logs-count")
    .filter({ hasText: new RegExp(`^${want}( match the filters)?$`) })
    .waitFor();
}
const table = () => page.getByRole("table", { name: "Request logs" });
const bodyRows = () => table().locator("tbody tr");
/** The text of one column in every rendered (virtualised: visible) row. */
async function column(name: string): Promise<string[]> {
  return table()
    .locator(`tbody td[data-column="${name}"]`)
    .evaluateAll((cells) => cells.map((c) => (c.textContent ?? "").trim()));
}
async function pick(control: Locator, option: string) {
  await control.click();
  await page.getByRole("option", { name: option, exact: true }).click();
}
async function openLogs(search = "") {
  await page.goto(`${hone.url}/logs${search}`);
  await table().waitFor();
}
const searchParams = () => new URL(page.url()).searchParams;

describe("request logs", () => {
  test("the table: newest first, the count, the columns", async () => {
    const total = hone.seeded!.logs + 1;
    await openLogs();
    await waitForCount(total);
    // The newest log is the tool conversation reported last.
    const first = bodyRows().first();
    expect(await first.getAttribute("data-log-id")).toBe(toolLogId);
    expect(await first.locator('td[data-column="model"]').textContent()).toBe("openai:gpt-4o");
    expect(await first.locator('td[data-column="status"]').textContent()).toBe("200");
    expect(await first.locator('td[data-column="tags"]').textContent()).toContain("prompt_id=tool-demo");
    const ids = await bodyRows().evaluateAll((rows) => rows.map((r) => r.getAttribute("data-log-id")!));
    expect(ids.length).toBeGreaterThan(10);
    expect(ids.length).toBeLessThan(100); // virtualised: only what is on screen
    expect([...ids].sort().reverse()).toEqual(ids);
    // Status is text: failures show their code.
    const statuses = new Set(await column("status"));
    for (const s of statuses) expect(s).toMatch(/^(\d{3}|—)$/);

    // Infinite scroll: scrolling to the end loads every page.
    const scroller = page.locator(".hone-logs-scroll");
    for (let i = 0; i < 10; i++) {
      await scroller.evaluate((el) => el.scrollTo(0, el.scrollHeight));
      if (await page.getByText("End of the list").isVisible()) break;
      await page.waitForTimeout(300);
    }
    await page.getByText("End of the list").waitFor();
    // Every page loaded (100 at a time), and the last row is the oldest log.
    expect(await table().getAttribute("aria-rowcount")).toBe(String(total + 1));
    const p1 = await hone.trpc<{ logs: any[]; endCursor: string }>("logs.list", { first: 200 });
    const p2 = await hone.trpc<{ logs: any[] }>("logs.list", { first: 200, after: p1.endCursor });
    expect(await bodyRows().last().getAttribute("data-log-id")).toBe(p2.logs[p2.logs.length - 1].id);
    await scroller.evaluate((el) => el.scrollTo(0, 0));

    // The column chooser hides a column, and remembers it.
    await page.getByRole("button", { name: "Columns" }).click();
    await page.getByRole("checkbox", { name: "Cost" }).uncheck();
    await page.keyboard.press("Escape");
    expect(await table().locator('th:has-text("Cost")').count()).toBe(0);
    await page.reload();
    await table().waitFor();
    expect(await table().locator('th:has-text("Cost")').count()).toBe(0);
    await page.getByRole("button", { name: "Columns" }).click();
    await page.getByRole("checkbox", { name: "Cost" }).check();
    await page.keyboard.press("Escape");
    await table().locator('th:has-text("Cost")').waitFor();
    await page.getByRole("menu").waitFor({ state: "detached" });
    await shot(page, "logs-list");
  });

  test("a first load asks for the rows alongside the session check, once, with the page's chunks preloaded", async () => {
    const events: string[] = [];
    const onRequest = (r: { url(): string }) => {
      const path = new URL(r.url()).pathname;
      if (path.startsWith("/trpc/")) events.push(`request ${path.slice(6)}`);
    };
    const onResponse = (r: { url(): string }) => {
      const path = new URL(r.url()).pathname;
      if (path.startsWith("/trpc/")) events.push(`response ${path.slice(6)}`);
    };
    page.on("request", onRequest);
    page.on("response", onResponse);
    try {
      await page.goto(`${hone.url}/logs?model=gpt-4o`);
      await bodyRows().first().waitFor();
      expect(new Set(await column("model"))).toEqual(new Set(["openai:gpt-4o"]));
      await page.waitForTimeout(300);
    } finally {
      page.off("request", onRequest);
      page.off("response", onResponse);
    }
    const lists = events.filter((e) => e.startsWith("request ") && e.includes("logs.list"));
    // The page found the prefetched rows: it did not ask again.
    expect(lists).toHaveLength(1);
    // Asked before the session check answered, not after it.
    const sessionAnswered = events.findIndex((e) => e.startsWith("response ") && e.includes("session.me"));
    expect(sessionAnswered).toBeGreaterThan(-1);
    expect(events.indexOf(lists[0]!)).toBeLessThan(sessionAnswered);
    // The page's own chunk was asked for by the HTML, not after the shell ran.
    const html = await (await fetch(`${hone.url}/logs`)).text();
    expect(html).toContain('rel="modulepreload"');
  });

  test("filter by model, status class, status code, source: the rows match the seed", async () => {
    const s = hone.seeded!;
    await openLogs();
    // Models are listed as provider:model.
    await page.getByRole("combobox", { name: "Model" }).fill("gpt-4o");
    await page.getByRole("option", { name: "openai:gpt-4o", exact: true }).click();
    await waitForCount(s.byModel["openai:gpt-4o"]! + 1);
    expect(searchParams().get("model")).toBe("openai:gpt-4o");
    expect(new Set(await column("model"))).toEqual(new Set(["openai:gpt-4o"]));
    await page.getByRole("button", { name: "Clear all" }).click();
    await waitForCount(s.logs + 1);

    await pick(page.getByRole("combobox", { name: "Status class" }), "5xx");
    const fivexx = (s.byStatus["500"] ?? 0) + (s.byStatus["502"] ?? 0);
    await waitForCount(fivexx);
    for (const status of await column("status")) expect(["500", "502"]).toContain(status);
    await page.getByRole("button", { name: "Clear all" }).click();

    await page.getByRole("button", { name: "More filters" }).click();
    await page.getByLabel("Status code").fill("429");
    await waitForCount(s.byStatus["429"]!);
    expect(new Set(await column("status"))).toEqual(new Set(["429"]));

    // The view is a link: opened fresh, the URL gives the same rows.
    const shared = page.url();
    expect(searchParams().get("status")).toBe("429");
    await page.goto(shared);
    await waitForCount(s.byStatus["429"]!);
    expect(await page.getByLabel("Status code").inputValue()).toBe("429");
    await page.getByRole("button", { name: "Clear all" }).click();

    await pick(page.getByRole("combobox", { name: "Source" }), "report (Anthropic)");
    await waitForCount(s.bySource["report-anthropic"]!);
    expect(new Set(await column("source"))).toEqual(new Set(["report (Anthropic)"]));
    await page.getByRole("button", { name: "Clear all" }).click();

    await pick(page.getByRole("combobox", { name: "Cache" }), "hit");
    await waitForCount(s.cacheHits);
    // (The cache column is left out at this width: the rows are checked through the API.)
    const shown = await bodyRows().evaluateAll((rows) => rows.map((r) => r.getAttribute("data-log-id")!));
    expect((await hone.trpc<{ count: number }>("logs.count", { filter: { ids: shown, cacheHit: true } })).count).toBe(shown.length);
  });

  test("filter by tag and by text", async () => {
    const s = hone.seeded!;
    await openLogs();
    const more = page.getByRole("button", { name: "More filters" });
    if (await more.isVisible()) await more.click();
    await page.getByRole("combobox", { name: "Tag key" }).fill("prompt_id");
    await page.getByRole("option", { name: "prompt_id", exact: true }).click();
    await page.getByRole("combobox", { name: "Tag value" }).click();
    await page.getByRole("option", { name: "p3", exact: true }).click();
    await page.getByRole("button", { name: "Add tag filter" }).click();
    await waitForCount(s.byPromptId.p3!);
    for (const tags of await column("tags")) expect(tags).toContain("prompt_id=p3");
    // A second tag narrows it.
    await page.getByRole("combobox", { name: "Tag key" }).fill("user");
    await page.getByRole("combobox", { name: "Tag value" }).fill("u4");
    await page.getByRole("button", { name: "Add tag filter" }).click();
    const both = await hone.trpc<{ count: number }>("logs.count", {
      filter: {
        tags: [
          { key: "prompt_id", equals: "p3" },
          { key: "user", equals: "u4" },
        ],
      },
    });
    await waitForCount(both.count);
    expect(searchParams().get("tag")).toContain("user=u4");
    await page.getByRole("button", { name: "Remove tag filter user=u4" }).click();
    await waitForCount(s.byPromptId.p3!);
    await page.getByRole("button", { name: "Clear all" }).click();

    // Text search: "Anthropic question #1" is in #1 and #10..#19 of the Anthropic reports.
    await page.getByLabel("Search").fill("Anthropic question #1");
    const expected = Array.from({ length: s.sent.reportAnthropic }, (_, i) => `Anthropic question #${i}`).filter((t) =>
      t.includes("Anthropic question #1"),
    ).length;
    await waitForCount(expected);
    expect(new Set(await column("source"))).toEqual(new Set(["report (Anthropic)"]));
    expect(searchParams().get("q")).toBe("Anthropic question #1");
  });

  test("a log with tool calls: the conversation, the tool call and its result, the image, the tags; edit a tag", async () => {
    await openLogs();
    await table().locator(`tr[data-log-id="${toolLogId}"]`).click();
    const drawer = page.getByRole("dialog");
    await drawer.getByTestId("request-view").waitFor();
    expect(new URL(page.url()).pathname).toBe(`/logs/${toolLogId}`);
    const roles = await drawer.getByTestId("request-view").getByTestId("role").allTextContents();
    expect(roles).toEqual(["system", "user", "assistant", "tool"]);
    const call = drawer.getByTestId("tool-call").first();
    expect(await call.textContent()).toContain("lookup_order");
    expect(await call.textContent()).toContain('"q": "42"');
    expect(await drawer.getByText("result of").textContent()).toContain("lookup_order (call_abc123)");
    expect(await drawer.getByRole("img", { name: "image in the message" }).getAttribute("src")).toStartWith("data:image/png");
    expect(await drawer.getByText("Response format").count()).toBe(1);
    expect(await drawer.getByTestId("response-view").textContent()).toContain("Order 42 has shipped.");
    expect(await drawer.getByTestId("fact-tokens-in").textContent()).toBe("50");
    const tags = drawer.getByTestId("tags-editor");
    expect(await tags.locator('tr[data-tag-key="prompt_id"]').textContent()).toContain("tool-demo");
    await shot(page, "log-detail");

    // Raw JSON (a lazy chunk) with copy.
    await drawer.getByRole("tab", { name: "Raw JSON" }).click();
    await drawer.getByRole("region", { name: "Raw request JSON" }).waitFor();
    expect(await drawer.getByRole("region", { name: "Raw request JSON" }).textContent()).toContain("call_abc123");
    await drawer.getByRole("tab", { name: "Conversation" }).click();

    // Edit a tag, add one, remove one: the API sees each.
    await tags.getByRole("button", { name: "Edit tag user" }).click();
    await tags.getByLabel("New value of user").fill("u-edited");
    await tags.getByRole("button", { name: "Save" }).click();
    await tags.locator('tr[data-tag-key="user"]').filter({ hasText: "u-edited" }).waitFor();
    expect((await hone.trpc("logs.get", { id: toolLogId })).tags.user).toBe("u-edited");
    await tags.getByLabel("New tag key").fill("reviewed");
    await tags.getByLabel("New tag value").fill("yes");
    await tags.getByRole("button", { name: "Add tag" }).click();
    await tags.locator('tr[data-tag-key="reviewed"]').waitFor();
    await tags.getByRole("button", { name: "Remove tag prompt_id" }).click();
    await tags.locator('tr[data-tag-key="prompt_id"]').waitFor({ state: "detached" });
    const after = (await hone.trpc("logs.get", { id: toolLogId })).tags;
    expect(after).toEqual({ user: "u-edited", reviewed: "yes" });

    await drawer.getByRole("button", { name: "Close log" }).click();
    await drawer.waitFor({ state: "detached" });
    expect(new URL(page.url()).pathname).toBe("/logs");
  });

  test("a failed call shows its error prominently", async () => {
    const failed = await waitForLogs({ statusCode: 502 }, 1);
    await page.goto(`${hone.url}/logs/${failed[0].id}`);
    const alert = page.getByRole("dialog").getByRole("alert");
    await alert.waitFor();
    expect(await alert.textContent()).toContain("502");
    expect(await alert.textContent()).toContain("Bad gateway at the provider");
  });

  test("select logs and add them to a new dataset; the entries are there through the API", async () => {
    await openLogs(`?model=gpt-4o&status=200&source=report`);
    const rows = bodyRows();
    await rows.first().waitFor();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const id = (await rows.nth(i).getAttribute("data-log-id"))!;
      ids.push(id);
      await rows.nth(i).getByRole("checkbox").check();
    }
    expect(await page.getByTestId("selection-count").textContent()).toBe("3 logs selected");
    await page.getByRole("button", { name: "Add to dataset" }).click();
    const modal = page.getByRole("dialog", { name: "Add to dataset" });
    await modal.getByLabel("Dataset").fill("Browser picks");
    await modal.getByRole("button", { name: "Create dataset and add" }).click();
    const result = modal.getByTestId("import-result");
    await result.waitFor();
    expect(await result.textContent()).toContain("3 entries created");
    expect(await result.textContent()).toContain("0 duplicates skipped");
    expect(await result.textContent()).toContain("0 invalid logs");
    await page.waitForTimeout(500); // the notification's entrance
    await shot(page, "logs-bulk-add");
    await modal.getByRole("button", { name: "Done" }).click();

    const datasets = await hone.trpc<{ id: string; name: string }[]>("datasets.list");
    const ds = datasets.find((d) => d.name === "Browser picks")!;
    expect(ds).toBeDefined();
    const entries = await hone.trpc<{ entries: any[] }>("datasets.listEntries", { datasetId: ds.id, first: 50 });
    expect(entries.entries).toHaveLength(3);
    // Each log now links to the entry it fed.
    const detail = await hone.trpc("logs.get", { id: ids[0] });
    expect(detail.datasetEntries.map((e: any) => e.datasetName)).toEqual(["Browser picks"]);
    await page.goto(`${hone.url}/logs/${ids[0]}`);
    await page.getByTestId("dataset-entries").filter({ hasText: "Browser picks" }).waitFor();

    // Set a tag on every log matching the filter ("select all matching").
    await openLogs(`?tag=${encodeURIComponent(JSON.stringify(["prompt_id=p5"]))}`);
    const p5 = hone.seeded!.byPromptId.p5!;
    await waitForCount(p5);
    await page.getByRole("checkbox", { name: "Select all loaded logs" }).check();
    // Every matching log is loaded (fewer than a page), so there is no "select all matching" to offer.
    expect(await page.getByRole("button", { name: /matching the filter$/ }).count()).toBe(0);
    expect(await page.getByTestId("selection-count").textContent()).toBe(`${fmt(p5)} logs selected`);
    await page.getByRole("button", { name: "Set tag" }).click();
    const tagModal = page.getByRole("dialog", { name: "Set a tag" });
    await tagModal.getByLabel("Tag key").fill("batch");
    await tagModal.getByLabel("Tag value").fill("b1");
    await tagModal.getByRole("button", { name: "Set tag" }).click();
    await page.getByText(`${fmt(p5)} logs updated`).waitFor();
    const tagged = await hone.trpc<{ count: number }>("logs.count", { filter: { tags: [{ key: "batch", equals: "b1" }] } });
    expect(tagged.count).toBe(p5);
  });

  test("export the filter as JSONL: as many lines as the count", async () => {
    await openLogs(`?statusClass=2xx&source=gateway`);
    const want = await hone.trpc<{ count: number }>("logs.count", { filter: { statusClass: "2xx", source: "gateway" } });
    await waitForCount(want.count);
    const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Export JSONL" }).click()]);
    expect(download.suggestedFilename()).toEndWith(".jsonl");
    const text = readFileSync((await download.path())!, "utf8");
    const lines = text.split("\n").filter(Boolean);
    expect(lines).toHaveLength(want.count);
    const first = JSON.parse(lines[0]!);
    expect(first.source).toBe("gateway");
    expect(first.reqPayload.messages.length).toBeGreaterThan(0);
  });

  test("live: a call made after the page loaded appears on top, highlighted", async () => {
    await openLogs();
    const before = await bodyRows().first().getAttribute("data-log-id");
    await page.getByRole("switch", { name: "Live" }).check();
    const res = await fetch(`${hone.url}/api/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${hone.project.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: "Live tail call" }] }),
    });
    expect(res.status).toBe(200);
    const [live] = await waitForLogs({ search: "Live tail call" }, 1);
    const row = table().locator(`tr[data-log-id="${live.id}"]`);
    await row.waitFor({ timeout: 10_000 });
    expect(await bodyRows().first().getAttribute("data-log-id")).toBe(live.id);
    expect(await row.getAttribute("class")).toContain("hone-log-row-new");
    expect(before).not.toBe(live.id);
    await page.getByRole("switch", { name: "Live" }).uncheck();
  });

  test("dark theme screenshots", async () => {
    await openLogs();
    await page.getByRole("button", { name: "Toggle color scheme" }).click();
    await page.waitForFunction(() => document.documentElement.getAttribute("data-mantine-color-scheme") === "dark");
    await page.mouse.move(600, 600);
    await page.waitForTimeout(300);
    await shot(page, "logs-list-dark");
    await page.goto(`${hone.url}/logs/${toolLogId}`);
    await page.getByRole("dialog").getByTestId("request-view").waitFor();
    await shot(page, "log-detail-dark");
    await page
      .getByRole("button", { name: "Toggle color scheme" })
      .first()
      .click({ force: true })
      .catch(() => {});
  });

  test("a project with no logs: the empty state with a curl snippet for this server", async () => {
    const created = await hone.trpc<{ apiKey: string }>("admin.createProject", { name: "Empty project" }, { key: ADMIN_TOKEN, mutation: true });
    const context = await browser.newContext();
    try {
      const p = await context.newPage();
      await signIn(p, hone.url, created.apiKey);
      await p.goto(`${hone.url}/logs`);
      const empty = p.getByTestId("logs-empty");
      await empty.waitFor();
      expect(await empty.textContent()).toContain(`${hone.url}/api/v1/chat/completions`);
      await shot(p, "logs-empty");
    } finally {
      await context.close();
    }
  });
});
