import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { type Browser, closeAll, type Hone, launchBrowser, shot, startHone } from "./harness";

// Every page as a viewer: no enabled control offers an action the server would refuse a viewer
// (the mutations are member's or above). Each page and each kind of detail page is visited with
// something on it to act on; a control that changes something must be absent, or disabled with a
// tooltip naming the role that may (MayButton).
let hone: Hone;
let browser: Browser;
let owner: Page;
let viewer: Page;
const errors: string[] = [];

/** Names of controls that change something: what a viewer must not be offered enabled. */
const MUTATING =
  /^(New|Add|Create|Delete|Remove|Edit|Save|Rename|Retry|Cancel|Deploy|Roll|Start|Run|Judge|Upload|Import|Invite|Revoke|Pause|Resume|Backfill|Accept|Reject|Set|Change|Make|Relabel|Train|Fine-tune|Re-split|Rotate|Send a test|Monitor these|Label|Disable|Enable|Promote|Duplicate|Apply|Link|Unlink|Store|Replace|Compare and save)\b/i;

beforeAll(async () => {
  [hone, browser] = await Promise.all([startHone({ seed: 30 }), launchBrowser()]);
  owner = await (await browser.newContext()).newPage();
  await owner.setViewportSize({ width: 1440, height: 900 });
  const token = /hone_inv_[A-Za-z0-9]+/.exec(hone.server.output())?.[0];
  await owner.goto(`${hone.url}/invite#${token}`);
  await owner.getByLabel("Email").fill("olga@example.com");
  await owner.getByLabel("Organisation name").fill("Sweep");
  await owner.getByLabel("Your name").fill("Olga");
  await owner.getByLabel("Choose a password").fill("owner password 1234");
  await owner.getByRole("button", { name: "Create owner and sign in" }).click();
  await owner.getByTestId("user-badge").waitFor();
  // Something of every kind to act on, made with the project's key.
  const dataset = await hone.trpc<{ id: string }>("datasets.create", { name: "sweep set" }, { mutation: true });
  const logs = await hone.trpc<{ logs: { id: string }[] }>("logs.list", { first: 5 });
  await hone.trpc("datasets.importLogs", { datasetId: dataset.id, logIds: logs.logs.map((l) => l.id) }, { mutation: true }).catch(() => null);
  const criterion = await hone.trpc<{ id: string }>(
    "criteria.create",
    { name: "Polite", judgeModel: "gpt-4o-mini", prompt: "Polite? {{output}}" },
    { mutation: true },
  );
  // A dataset to train and evaluate on, a model waiting for a trainer, an evaluation, a relabel run.
  const qa = await hone.trpc<{ id: string }>("datasets.create", { name: "sweep qa" }, { mutation: true });
  const entries = [0, 1, 2, 3].map((i) => ({
    messages: [
      { role: "user", content: `Question ${i}` },
      { role: "assistant", content: `Answer ${i}` },
    ],
    split: i < 3 ? "TRAIN" : "TEST",
  }));
  await hone.trpc("datasets.addEntries", { datasetId: qa.id, entries }, { mutation: true });
  await hone.trpc(
    "models.create",
    { datasetId: qa.id, slug: "sweep-model", trainingConfig: { provider: "trainer", baseModel: "meta-llama/Llama-3.2-1B-Instruct" } },
    { mutation: true },
  );
  await hone.trpc("evaluations.create", { datasetId: qa.id, models: ["openai:gpt-4o-mini"], criterionIds: [criterion.id] }, { mutation: true });
  await hone.trpc("relabelRuns.create", { datasetId: qa.id, model: "openai:gpt-4o-mini", criterionIds: [criterion.id] }, { mutation: true });
  await hone.trpc("routes.create", { slug: "sweep", groups: [{ targets: [{ model: "openai:gpt-4o-mini", weight: 100 }] }] }, { mutation: true });
  await hone.trpc("monitors.create", { name: "sweep monitor", datasetId: dataset.id, filter: {} }, { mutation: true });
  await hone.trpc("limits.set", { scope: "project", requestsPerMinute: 1000 }, { mutation: true });
  // The viewer, invited by the owner, in another browser.
  const inv = await owner.evaluate(async () => {
    const res = await fetch("/trpc/team.invite", {
      method: "POST",
      headers: { "x-hone-console": "1", "content-type": "application/json" },
      body: JSON.stringify({ email: "vera@example.com", role: "viewer" }),
    });
    return (await res.json()).result.data as { url: string };
  });
  viewer = await (await browser.newContext()).newPage();
  viewer.on("pageerror", (e) => errors.push(String(e)));
  await viewer.setViewportSize({ width: 1440, height: 900 });
  await viewer.goto(`${hone.url}/invite#${inv.url.split("#")[1]}`);
  await viewer.getByLabel("Choose a password").fill("viewer password 123");
  await viewer.getByRole("button", { name: "Accept and sign in" }).click();
  await viewer.getByTestId("user-badge").waitFor();
}, 180_000);
afterAll(async () => {
  await closeAll(browser, hone);
});

/** The enabled, visible controls on the page whose names say they change something. */
async function offered(p: Page): Promise<string[]> {
  return p.evaluate((source) => {
    const re = new RegExp(source, "i");
    const out: string[] = [];
    for (const el of document.querySelectorAll<HTMLElement>("button, [role=button], a[role=button], input[type=submit]")) {
      const box = el.getBoundingClientRect();
      if (box.width === 0 || box.height === 0) continue;
      if ((el as HTMLButtonElement).disabled || el.getAttribute("aria-disabled") === "true" || el.getAttribute("data-disabled") === "true") continue;
      const name = (el.getAttribute("aria-label") ?? el.textContent ?? "").trim();
      if (re.test(name)) out.push(name);
    }
    return out;
  }, MUTATING.source);
}

describe("every page as a viewer", () => {
  test("no enabled control offers what the server refuses a viewer", async () => {
    const ids = {
      dataset: (await hone.trpc<{ id: string; name: string }[]>("datasets.list")).find((d) => d.name === "sweep set")!.id,
      criterion: (await hone.trpc<{ id: string }[]>("criteria.list"))[0]!.id,
      log: (await hone.trpc<{ logs: { id: string }[] }>("logs.list", { first: 1 })).logs[0]!.id,
      evaluation: (await hone.trpc<{ id: string }[]>("evaluations.list"))[0]!.id,
      relabelRun: (
        await hone.trpc<{ id: string }[]>("relabelRuns.list", {
          datasetId: (await hone.trpc<{ id: string; name: string }[]>("datasets.list")).find((d) => d.name === "sweep qa")!.id,
        })
      )[0]!.id,
    };
    const paths = [
      "/logs",
      `/logs/${ids.log}`,
      "/usage",
      "/limits",
      "/datasets",
      `/datasets/${ids.dataset}`,
      "/monitors",
      "/models",
      "/models/sweep-model",
      "/routes",
      "/routes/sweep",
      "/criteria",
      `/criteria/${ids.criterion}`,
      "/evaluations",
      `/evaluations/${ids.evaluation}`,
      `/relabel/${ids.relabelRun}`,
      "/playground",
      "/settings",
      "/settings?tab=api-keys",
      "/settings?tab=provider-keys",
      "/settings?tab=providers",
      "/settings?tab=prices",
      "/settings?tab=masking",
      "/settings?tab=trainers",
      "/members",
      "/account",
    ];
    const found: string[] = [];
    for (const path of paths) {
      await viewer.goto(`${hone.url}${path}`);
      await viewer.locator("main h2").first().waitFor();
      await viewer.waitForLoadState("networkidle");
      const names = await offered(viewer);
      // What a viewer may do: change their own password and end their own sessions, compose a call in
      // the playground (running it is a member's), open the relabel runs of a dataset to read them.
      const own = names.filter(
        (n) =>
          !(path === "/account" && /^(Change password|End|Revoke|Sign out)/.test(n)) &&
          !(path === "/playground" && /^(Add a model|Add a message|Remove message|Remove model)/.test(n)) &&
          n !== "Relabel runs",
      );
      if (own.length) found.push(`${path}: ${[...new Set(own)].join(", ")}`);
    }
    await shot(viewer, "viewer-sweep-last");
    expect(found).toEqual([]);
    expect(errors).toEqual([]);
  }, 240_000);
});
