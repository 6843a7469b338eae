import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { firstOwnerLink } from "../../src/domain/teams";
import { createTestApp, type TestApp } from "../helpers/app";
import { gql } from "../helpers/gql";
import { consoleClient } from "../helpers/trpc";

// A key made by a person acts for them: at most with their role now, and not at all once they are
// removed or disabled; a key made for the project (a service key) outlives its maker. Before a
// removal the owner sees the keys that will stop and may hand them to their projects.

let t: TestApp;
let owner: ReturnType<typeof consoleClient>;

beforeAll(async () => {
  // The default key cache: a change made here must apply to the next request all the same.
  t = await createTestApp();
  const link = (await firstOwnerLink(t.deps))!;
  owner = consoleClient(t);
  await owner.client.session.acceptInvitation.mutate({ token: link.split("#")[1]!, email: "owner@example.com", password: "owner password 123" });
}, 60_000);
afterAll(() => t.close());

async function person(email: string, role: "viewer" | "member" | "admin") {
  const inv = await owner.client.team.invite.mutate({ email, role });
  const c = consoleClient(t);
  await c.client.session.acceptInvitation.mutate({ token: inv.url.split("#")[1]!, password: `${email} password 123` });
  const userId = (await owner.client.team.members.query()).find((m) => m.email === email)!.userId;
  return { c, userId };
}

const status = async (key: string, method = "GET", path = "/api/v1/datasets", body?: unknown) => {
  const r = await t.request(method, path, { key, body });
  return { status: r.status, body: (await r.json().catch(() => null)) as { message?: string } | null };
};
const setLimit = (key: string) =>
  gql(t, `mutation { setLimit(input: {scope: "project", requestsPerMinute: 100}) { id } }`, {}, { key }).then((r) => r.errors?.[0]?.extensions?.code ?? "OK");

describe("a person's key", () => {
  test("records its maker and owner; a service key is the project's", async () => {
    const ann = await person("ann@example.com", "admin");
    const mine = await ann.c.client.apiKeys.create.mutate({ name: "ann laptop" });
    const service = await ann.c.client.apiKeys.create.mutate({ name: "ci", owner: "project" });
    expect(mine.key).toMatchObject({ owner: "person", createdBy: ann.userId });
    expect(service.key).toMatchObject({ owner: "project", createdBy: ann.userId });
    const listed = await gql(t, `{ apiKeys { id owner createdBy } }`, {}, { key: service.apiKey });
    expect(listed.data.apiKeys.find((k: { id: string }) => k.id === mine.key.id)).toEqual({ id: mine.key.id, owner: "person", createdBy: ann.userId });
    // A key made with a service key is the project's: "me" names nobody.
    const bad = await gql(t, `mutation { createApiKey(input: {owner: "me"}) { apiKey } }`, {}, { key: service.apiKey });
    expect(bad.errors?.[0]?.extensions?.code).toBe("VALIDATION");
    expect(bad.errors?.[0]?.message).toContain("owner");
  });

  test("acts at most with its maker's role now: a demotion narrows it at once", async () => {
    const bo = await person("bo@example.com", "admin");
    const key = (await bo.c.client.apiKeys.create.mutate({ name: "bo" })).apiKey;
    expect(await setLimit(key)).toBe("OK");
    expect((await status(key, "POST", "/api/v1/datasets", { name: "bo-1" })).status).toBe(200);

    await owner.client.team.updateRole.mutate({ userId: bo.userId, role: "member" });
    expect(await setLimit(key)).toBe("FORBIDDEN");
    expect((await status(key, "POST", "/api/v1/datasets", { name: "bo-2" })).status).toBe(200);

    await owner.client.team.updateRole.mutate({ userId: bo.userId, role: "viewer" });
    const refused = await status(key, "POST", "/api/v1/datasets", { name: "bo-3" });
    expect(refused.status).toBe(403);
    expect(refused.body?.message).toContain("viewer");
    expect((await status(key)).status).toBe(200);
    // A model call needs a member: refused too.
    const call = await status(key, "POST", "/api/v1/chat/completions", { model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] });
    expect(call.status).toBe(403);
  });

  test("stops when its maker is removed, with every key made through it; a service key goes on", async () => {
    const cy = await person("cy@example.com", "admin");
    const mine = await cy.c.client.apiKeys.create.mutate({ name: "cy" });
    const service = (await cy.c.client.apiKeys.create.mutate({ name: "cy ci", owner: "project" })).apiKey;
    // Minted with the person's own key: theirs too, so it cannot outlive them.
    const minted = await gql(t, `mutation { createApiKey(input: {name: "minted"}) { apiKey key { owner createdBy } } }`, {}, { key: mine.apiKey });
    expect(minted.data.createApiKey.key).toEqual({ owner: "person", createdBy: cy.userId });
    const mintedKey = minted.data.createApiKey.apiKey as string;
    expect((await status(mine.apiKey)).status).toBe(200);
    // Warm the key cache: removal must apply to the next request regardless.
    expect((await status(mintedKey)).status).toBe(200);

    const stopping = await owner.client.team.memberKeys.query({ userId: cy.userId });
    expect(stopping.map((k) => k.name).sort()).toEqual(["cy", "minted"]);

    await owner.client.team.remove.mutate({ userId: cy.userId });
    for (const key of [mine.apiKey, mintedKey]) {
      const r = await status(key);
      expect(r.status).toBe(401);
      expect(r.body?.message).toContain("cy@example.com");
      expect(r.body?.message).toContain("no longer a member");
    }
    expect((await status(service)).status).toBe(200);
  });

  test("stops while its maker is disabled, and works again once they are enabled", async () => {
    const dee = await person("dee@example.com", "admin");
    const key = (await dee.c.client.apiKeys.create.mutate({ name: "dee" })).apiKey;
    expect((await status(key)).status).toBe(200);
    await owner.client.team.setDisabled.mutate({ userId: dee.userId, disabled: true });
    const r = await status(key);
    expect(r.status).toBe(401);
    expect(r.body?.message).toContain("disabled");
    await owner.client.team.setDisabled.mutate({ userId: dee.userId, disabled: false });
    expect((await status(key)).status).toBe(200);
  });

  test("handed to the project at removal, or before it, a key keeps working; the hand-over is audited", async () => {
    const eve = await person("eve@example.com", "admin");
    const kept = (await eve.c.client.apiKeys.create.mutate({ name: "eve bot" })).apiKey;
    await owner.client.team.remove.mutate({ userId: eve.userId, keys: "project" });
    expect((await status(kept)).status).toBe(200);
    expect(await owner.client.team.memberKeys.query({ userId: eve.userId })).toEqual([]);

    const fay = await person("fay@example.com", "admin");
    const one = await fay.c.client.apiKeys.create.mutate({ name: "fay one" });
    const two = (await fay.c.client.apiKeys.create.mutate({ name: "fay two" })).apiKey;
    expect(await owner.client.team.handKeys.mutate({ userId: fay.userId, keyIds: [one.key.id] })).toEqual({ handed: 1 });
    await owner.client.team.remove.mutate({ userId: fay.userId });
    expect((await status(one.apiKey)).status).toBe(200);
    expect((await status(two)).status).toBe(401);

    const audit = await owner.client.team.auditLog.query({ filter: { verb: "team.handKeys" } });
    expect(audit.events.length).toBe(1);
    const removals = await owner.client.team.auditLog.query({ filter: { verb: "team.remove" } });
    expect(removals.events.some((e) => JSON.stringify(e).includes('"project"'))).toBe(true);
  });

  test("a console session signed in with a person's key acts with their role now, and ends with them", async () => {
    const ivy = await person("ivy@example.com", "admin");
    const key = (await ivy.c.client.apiKeys.create.mutate({ name: "ivy" })).apiKey;
    const browser = consoleClient(t);
    await browser.client.session.signIn.mutate({ token: key });
    expect(await browser.client.limits.set.mutate({ scope: "project", requestsPerMinute: 50 })).toMatchObject({ requestsPerMinute: 50 });
    await owner.client.team.updateRole.mutate({ userId: ivy.userId, role: "member" });
    await expect(browser.client.limits.set.mutate({ scope: "project", requestsPerMinute: 60 })).rejects.toThrow(/member/);
    expect((await browser.client.datasets.create.mutate({ name: "ivy's" })).name).toBe("ivy's");
    await owner.client.team.remove.mutate({ userId: ivy.userId });
    await expect(browser.client.datasets.list.query({})).rejects.toThrow();
  });

  test("only an owner lists or hands over a member's keys", async () => {
    const gil = await person("gil@example.com", "admin");
    const hal = await person("hal@example.com", "admin");
    await expect(gil.c.client.team.memberKeys.query({ userId: hal.userId })).rejects.toThrow();
    await expect(gil.c.client.team.handKeys.mutate({ userId: hal.userId })).rejects.toThrow();
  });
});
