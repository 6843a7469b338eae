import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { type Browser, type Hone, closeAll, launchBrowser, shot, signedInPage, startHone } from "./harness";

// Forms check what they can before sending, and bring the first problem into view with the cursor
// in it: a dataset entry whose Tools are not JSON (the field below the fold of the dialog), a route
// whose weights do not sum to 100. Nothing is sent while they are wrong.

let hone: Hone;
let browser: Browser;
let page: Page;
let datasetId = "";
const dialog = () => page.getByRole("dialog");
/** Whether the element is the focused one and inside the window. */
const focusedAndVisible = (el: Element) => {
  const r = el.getBoundingClientRect();
  return document.activeElement === el && r.top >= 0 && r.bottom <= window.innerHeight;
};

beforeAll(async () => {
  [hone, browser] = await Promise.all([startHone({ seed: 0 }), launchBrowser()]);
  datasetId = (await hone.trpc<{ id: string }>("datasets.create", { name: "support" }, { mutation: true })).id;
  ({ page } = await signedInPage(browser, hone, { width: 1280, height: 700 }));
}, 180_000);
afterAll(() => closeAll(browser, hone));

describe("forms that say what is wrong before sending", () => {
  test("a dataset entry with Tools that are not JSON: the Tools field is brought into view and focused; nothing is added", async () => {
    await page.goto(`${hone.url}/datasets/${datasetId}`);
    await page.getByRole("button", { name: "Add entry" }).click();
    const editor = dialog().getByTestId("entry-editor");
    await editor.waitFor();
    await editor.getByRole("button", { name: "Edit as JSON" }).click();
    await editor.getByLabel("Messages (JSON)").fill(
      JSON.stringify([
        { role: "user", content: "Where is my order?" },
        { role: "assistant", content: "On its way." },
      ]),
    );
    const tools = editor.getByLabel("Tools", { exact: true });
    await tools.fill('[{"type": "function", "function": {"name": "lookup"');
    await dialog().getByRole("button", { name: "Add entry" }).click();
    await page.waitForFunction((el) => el !== null && document.activeElement === el, await tools.elementHandle());
    expect(await tools.evaluate(focusedAndVisible)).toBe(true);
    expect(await tools.getAttribute("aria-invalid")).toBe("true");
    await shot(page, "form-entry-tools-error");
    const { entries } = await hone.trpc<{ entries: unknown[] }>("datasets.listEntries", { datasetId, first: 10 });
    expect(entries).toHaveLength(0);
    await page.keyboard.press("Escape");
  });

  test("a route whose weights sum to 95: Create sends nothing, says what to add, and the weights are in focus", async () => {
    await page.goto(`${hone.url}/routes`);
    await page.getByRole("button", { name: "New route" }).click();
    await dialog().getByLabel("Slug").fill("support");
    await dialog().getByLabel("Model of target 1 in group 1").fill("gpt-4o-mini");
    await dialog().getByLabel("Weight of target 1 in group 1").fill("60");
    await dialog().getByRole("button", { name: "Add target" }).click();
    await dialog().getByLabel("Model of target 2 in group 1").fill("gpt-4o");
    await dialog().getByLabel("Weight of target 2 in group 1").fill("35");
    await dialog().getByRole("button", { name: "Create route" }).click();
    const sum = dialog().getByTestId("route-group-sum-0");
    expect(await sum.getAttribute("role")).toBe("alert");
    expect(await sum.textContent()).toContain("must be 100: add 5");
    const first = dialog().getByLabel("Weight of target 1 in group 1");
    await page.waitForFunction((el) => el !== null && document.activeElement === el, await first.elementHandle());
    expect(await first.getAttribute("aria-invalid")).toBe("true");
    expect(await hone.trpc<unknown[]>("routes.list")).toEqual([]);
    await shot(page, "form-route-weights");
    // Fixed, it is created.
    await dialog().getByLabel("Weight of target 2 in group 1").fill("40");
    await dialog().getByRole("button", { name: "Create route" }).click();
    await page.waitForURL(/\/routes\/support$/);
  });

  test("a server error about a field is said once, next to that field, which takes the cursor", async () => {
    await page.goto(`${hone.url}/settings?tab=providers`);
    await page.getByRole("button", { name: "Add provider" }).click();
    // A slug the server refuses (only lowercase letters, digits and dashes): the form sends it as typed.
    await dialog().getByLabel("Slug").fill("In House!");
    await dialog().getByRole("textbox", { name: "Base URL" }).fill("https://models.example.com/v1");
    await dialog().getByRole("button", { name: "Add provider" }).click();
    const slug = dialog().getByRole("textbox", { name: "Slug" });
    await page.waitForFunction((el) => el !== null && el.getAttribute("aria-invalid") === "true" && document.activeElement === el, await slug.elementHandle());
    const text = (await dialog().textContent()) ?? "";
    // Said once, in words, by the field: no "Input validation failed", no path repeated, no alert above the buttons.
    expect(text).not.toContain("Input validation failed");
    expect(text).not.toContain("slug:");
    expect(await dialog().getByRole("alert").count()).toBe(0);
    const describedBy = (await slug.getAttribute("aria-describedby")) ?? "";
    const said = await page.evaluate(
      (ids) =>
        ids
          .split(" ")
          .map((id) => document.getElementById(id)?.textContent ?? "")
          .join(" "),
      describedBy,
    );
    expect(said).toMatch(/lowercase/i);
    expect(await hone.trpc<unknown[]>("customProviders.list")).toEqual([]);
    await shot(page, "form-provider-server-error");
    await page.keyboard.press("Escape");
  });
});
