import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { type Browser, type Hone, launchBrowser, reportLog, shot, signIn, startHone, closeAll } from "./harness";

// What the browser pages let through: a remote image in a logged payload is not fetched until the
// viewer asks for it, and GraphiQL and the REST docs page work under their Content-Security-Policy
// with no violation.
let hone: Hone;
let browser: Browser;
let page: Page;
let logId: string;

/** A host that does not exist: the page's requests to it are answered by the test (page.route). */
const IMAGE_HOST = "images.hone-test.invalid";
const HTTPS_IMAGE = `https://${IMAGE_HOST}/uploads/2024/customer-photos/order-42-damaged-parcel-front.png?viewer=tracking-token-0123456789`;
const HTTP_IMAGE = `http://${IMAGE_HOST}/plain.png`;
const PIXEL = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";

/** Listens for CSP violations from the page's first script on (events and console messages). */
async function watchViolations(p: Page): Promise<string[]> {
  const seen: string[] = [];
  await p.exposeFunction("__honeViolation", (v: string) => seen.push(v));
  await p.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (e) => {
      (window as unknown as { __honeViolation(v: string): void }).__honeViolation(`${e.effectiveDirective} ${e.blockedURI}`);
    });
  });
  p.on("console", (m) => {
    if (/Content.Security.Policy/i.test(m.text())) seen.push(m.text().slice(0, 300));
  });
  return seen;
}

beforeAll(async () => {
  [hone, browser] = await Promise.all([startHone({ seed: 0 }), launchBrowser()]);
  const now = Date.now();
  logId = await reportLog(hone, {
    reqPayload: {
      model: "gpt-4o",
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "Is this parcel damaged? Two photos and a thumbnail." },
            { type: "image_url", image_url: { url: HTTPS_IMAGE } },
            { type: "image_url", image_url: { url: HTTP_IMAGE } },
            { type: "image_url", image_url: { url: PIXEL } },
          ],
        },
      ],
    },
    respPayload: {
      id: "chatcmpl-remote-image",
      object: "chat.completion",
      created: Math.floor(now / 1000),
      model: "gpt-4o",
      choices: [{ index: 0, message: { role: "assistant", content: "Yes, the corner is crushed." }, finish_reason: "stop" }],
      usage: { prompt_tokens: 900, completion_tokens: 8, total_tokens: 908 },
    },
  });
  page = await browser.newPage();
}, 120_000);
afterAll(() => closeAll(browser, hone));

describe("a remote image in a logged payload", () => {
  test("is not fetched when the log is opened; Load image fetches it (https only)", async () => {
    const violations = await watchViolations(page);
    const requested: string[] = [];
    page.on("request", (r) => {
      if (new URL(r.url()).host === IMAGE_HOST) requested.push(r.url());
    });
    let served = 0;
    const png = Buffer.from(PIXEL.slice(PIXEL.indexOf(",") + 1), "base64");
    await page.route(`**://${IMAGE_HOST}/**`, (route) => {
      served++;
      return route.fulfill({ status: 200, contentType: "image/png", body: png });
    });

    await signIn(page, hone.url, hone.project.apiKey);
    await page.goto(`${hone.url}/logs/${logId}`);
    const drawer = page.getByRole("dialog");
    await drawer.getByTestId("request-view").waitFor();
    expect(await drawer.getByTestId("response-view").textContent()).toContain("the corner is crushed");

    // The data: image is in the payload: shown at once.
    expect(await drawer.getByRole("img", { name: "image in the message" }).getAttribute("src")).toStartWith("data:image/png");
    // The remote ones are links, shortened; only the https one can be loaded.
    const remote = drawer.getByTestId("remote-image");
    expect(await remote.count()).toBe(2);
    const httpsLink = remote.nth(0).getByRole("link");
    expect(await httpsLink.getAttribute("href")).toBe(HTTPS_IMAGE);
    expect(await httpsLink.getAttribute("rel")).toContain("noreferrer");
    const shown = (await httpsLink.textContent()) ?? "";
    expect(shown).toContain(IMAGE_HOST);
    expect(shown).toContain("…");
    expect(shown.length).toBeLessThan(HTTPS_IMAGE.length);
    expect(await remote.nth(1).getByRole("link").getAttribute("href")).toBe(HTTP_IMAGE);
    expect(await remote.nth(1).getByRole("button").count()).toBe(0);
    const load = drawer.getByRole("button", { name: "Load image" });
    expect(await load.count()).toBe(1);
    expect(await load.isVisible()).toBe(true);

    // Give a would-be fetch its chance: nothing asked the image host, and no <img> points there.
    await page.waitForTimeout(1000);
    expect(requested).toEqual([]);
    expect(served).toBe(0);
    expect(await page.locator(`img[src*="${IMAGE_HOST}"]`).count()).toBe(0);
    await shot(page, "log-remote-image");

    await load.click();
    const img = drawer.locator(`img[src="${HTTPS_IMAGE}"]`);
    await img.waitFor();
    await page.waitForFunction((src) => {
      const el = document.querySelector(`img[src="${src}"]`) as HTMLImageElement | null;
      return Boolean(el?.complete && el.naturalWidth > 0);
    }, HTTPS_IMAGE);
    expect(requested).toEqual([HTTPS_IMAGE]);
    expect(served).toBe(1);
    // The http image stays a link: it is never fetched.
    expect(await drawer.getByTestId("remote-image").count()).toBe(1);
    expect(violations).toEqual([]);
  });
});

describe("GraphiQL and the REST docs page under their policies", () => {
  test("GraphiQL renders its editor and runs { __typename } with a bearer key, with no CSP violation", async () => {
    const p = await browser.context.newPage();
    try {
      const violations = await watchViolations(p);
      const res = await p.goto(`${hone.url}/graphql`);
      expect(res?.headers()["content-security-policy"]).toContain("frame-ancestors 'none'");
      await p.locator(".graphiql-container").first().waitFor();
      await p.locator(".graphiql-query-editor .monaco-editor").waitFor();
      const setEditor = async (selector: string, text: string) => {
        await p.locator(selector).first().click();
        await p.keyboard.press("ControlOrMeta+A");
        await p.keyboard.press("Delete");
        await p.keyboard.insertText(text);
      };
      await setEditor(".graphiql-editor-tool .graphiql-editor:not(.hidden) .monaco-editor", JSON.stringify({ Authorization: `Bearer ${hone.project.apiKey}` }));
      await setEditor(".graphiql-query-editor .monaco-editor", "{ __typename }");
      await p.getByRole("button", { name: "Execute query (Ctrl-Enter)" }).click();
      await p.locator(".result-window").filter({ hasText: '"__typename": "Query"' }).waitFor();
      await shot(p, "graphiql");
      expect(violations).toEqual([]);
    } finally {
      await p.close();
    }
  });

  test("the docs page renders the route list, with no CSP violation", async () => {
    const p = await browser.context.newPage();
    try {
      const violations = await watchViolations(p);
      const res = await p.goto(`${hone.url}/api/v1/docs`);
      expect(res?.headers()["content-security-policy"]).toContain("frame-ancestors 'none'");
      await p.locator("main#root details").first().waitFor();
      expect(await p.locator("main#root details").count()).toBeGreaterThan(10);
      expect(await p.locator("main#root").textContent()).toContain("/chat/completions");
      expect(await p.locator("#info").textContent()).toContain("Base URL");
      expect(violations).toEqual([]);
    } finally {
      await p.close();
    }
  });
});
