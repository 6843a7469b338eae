import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { count as count_, eq, sql } from "drizzle-orm";
import { auditEvents, invitations } from "../../src/db/schema";
import { purgeOldAudit, recordAudit } from "../../src/domain/audit";
import { firstOwnerLink } from "../../src/domain/teams";
import { createTestApp, type TestApp } from "../helpers/app";
import { startFakeSmtp } from "../helpers/fake-smtp";
import { codeOf, consoleClient, trpcClient, trpcFailure } from "../helpers/trpc";

let t: TestApp;
const PASSWORD = "correct horse battery staple";
const tokenOf = (url: string) => url.slice(url.indexOf("#") + 1);

beforeAll(async () => {
  t = await createTestApp({ env: { HONE_API_KEY_CACHE_MS: "0", HONE_PUBLIC_URL: "https://hone.example.com" } });
}, 60_000);
afterAll(async () => {
  await t.close();
});

let owner: ReturnType<typeof consoleClient>;

describe("teams", () => {
  test("the first-owner link makes the organisation, takes in the existing project, and works once", async () => {
    const url = await firstOwnerLink(t.deps);
    expect(url).toStartWith("https://hone.example.com/invite#hone_inv_");
    const token = tokenOf(url!);
    owner = consoleClient(t, { userAgent: "owner-browser/1" });
    const preview = await owner.client.session.invitation.query({ token });
    expect(preview).toMatchObject({ firstOwner: true, role: "owner", email: null });
    // A weak password is refused by the stated rule, and the link stays usable.
    const weak = await codeOf(owner.client.session.acceptInvitation.mutate({ token, email: "Olive@Example.com", password: "short" }));
    expect(weak).toBe("VALIDATION");
    const me = await owner.client.session.acceptInvitation.mutate({ token, email: "Olive@Example.com", password: PASSWORD, organizationName: "Acme" });
    expect(me.user?.email).toBe("olive@example.com");
    expect(me.organization?.name).toBe("Acme");
    expect(me.role).toBe("owner");
    expect(me.project?.id).toBe(t.project.projectId);
    expect(owner.jar.setCookies[0]).toContain("SameSite=Strict");
    // Used: a second accept is a conflict; no new link once someone exists.
    expect(await codeOf(consoleClient(t).client.session.acceptInvitation.mutate({ token, email: "x@example.com", password: PASSWORD }))).toBe("CONFLICT");
    expect(await firstOwnerLink(t.deps)).toBeNull();
    // The owner reads the project's data through tRPC and GraphQL with the session.
    expect(Array.isArray(await owner.client.datasets.list.query())).toBe(true);
    const g = await owner.gql("{ datasets { id } }");
    expect(g.errors).toBeUndefined();
  });

  test("password sign-in: right password signs in, wrong ones are refused and then slowed per account", async () => {
    const b = consoleClient(t);
    const me = await b.client.session.signInWithPassword.mutate({ email: "olive@example.com", password: PASSWORD });
    expect(me.role).toBe("owner");
    const other = consoleClient(t);
    expect(await codeOf(other.client.session.signInWithPassword.mutate({ email: "olive@example.com", password: "wrong password!!" }))).toBe("UNAUTHORIZED");
    expect(await codeOf(other.client.session.signInWithPassword.mutate({ email: "nobody@example.com", password: "wrong password!!" }))).toBe("UNAUTHORIZED");
  });

  test("invitations: an owner invites a viewer; the link is single use; the viewer reads but cannot change", async () => {
    const inv = await owner.client.team.invite.mutate({ email: "vic@example.com", role: "viewer" });
    expect(inv.url).toStartWith("https://hone.example.com/invite#");
    expect(inv.emailed).toBe(false);
    const token = tokenOf(inv.url);
    const viewer = consoleClient(t);
    const me = await viewer.client.session.acceptInvitation.mutate({ token, password: "viewer password 123" });
    expect(me.role).toBe("viewer");
    expect(await codeOf(consoleClient(t).client.session.acceptInvitation.mutate({ token, password: "viewer password 123" }))).toBe("CONFLICT");
    expect(await codeOf(viewer.client.datasets.list.query())).toBe("OK");
    expect(await codeOf(viewer.client.datasets.create.mutate({ name: "nope" }))).toBe("FORBIDDEN");
    const g = await viewer.gql('mutation { createDataset(input: {name: "nope"}) { id } }');
    expect(g.errors?.[0]?.extensions?.code).toBe("FORBIDDEN");
    expect(await codeOf(viewer.client.team.invite.mutate({ email: "x@example.com", role: "viewer" }))).toBe("FORBIDDEN");
    // A role that does not exist is a clear 400.
    expect(await codeOf(owner.client.team.invite.mutate({ email: "y@example.com", role: "superuser" as never }))).toBe("VALIDATION");
  });

  test("the owner promotes, narrows per project and removes; removal ends the member's sessions", async () => {
    const members = await owner.client.team.members.query();
    const vic = members.find((m) => m.email === "vic@example.com")!;
    await owner.client.team.updateRole.mutate({ userId: vic.userId, role: "member" });
    const viewer = consoleClient(t);
    await viewer.client.session.signInWithPassword.mutate({ email: "vic@example.com", password: "viewer password 123" });
    expect(await codeOf(viewer.client.datasets.create.mutate({ name: "by vic" }))).toBe("OK");
    await owner.client.team.updateRole.mutate({ userId: vic.userId, role: "viewer", projectId: t.project.projectId });
    expect(await codeOf(viewer.client.datasets.create.mutate({ name: "by vic 2" }))).toBe("FORBIDDEN");
    // The last owner can be neither demoted nor removed.
    const olive = members.find((m) => m.email === "olive@example.com")!;
    expect(await codeOf(owner.client.team.updateRole.mutate({ userId: olive.userId, role: "admin" }))).toBe("CONFLICT");
    await owner.client.team.remove.mutate({ userId: vic.userId });
    expect(await codeOf(viewer.client.datasets.list.query())).toBe("UNAUTHORIZED");
  });

  test("organisation work goes by the organisation role: an owner narrowed to viewer in a project still manages members", async () => {
    const me = await owner.client.session.me.query();
    await owner.client.team.updateRole.mutate({ userId: me!.user!.id, role: "viewer", projectId: t.project.projectId });
    expect((await owner.client.session.me.query())!.role).toBe("viewer");
    expect(await codeOf(owner.client.datasets.create.mutate({ name: "as a narrowed owner" }))).toBe("FORBIDDEN");
    expect(await codeOf(owner.client.team.invite.mutate({ email: "narrow@example.com", role: "viewer" }))).toBe("OK");
    expect(await codeOf(owner.client.team.auditLog.query({ first: 1 }))).toBe("OK");
    const g = await owner.gql('mutation { inviteMember(email: "narrow2@example.com", role: "viewer") { id } }');
    expect(g.errors).toBeUndefined();
    const a = await owner.gql("{ auditLog(first: 1) { edges { node { action } } } }");
    expect(a.errors).toBeUndefined();
    await owner.client.team.clearProjectRole.mutate({ userId: me!.user!.id, projectId: t.project.projectId });
    expect((await owner.client.session.me.query())!.role).toBe("owner");
  });

  test("the audit log records who changed what, from where, without secrets", async () => {
    const key = await owner.client.apiKeys.create.mutate({ name: "ci" });
    await owner.client.providerKeys.set.mutate({ provider: "openai", apiKey: "sk-secret-value-123456" });
    const page = await owner.client.team.auditLog.query({ first: 100 });
    const actions = page.events.map((e) => e.action);
    expect(actions).toContain("apiKeys.create");
    expect(actions).toContain("providerKeys.set");
    expect(actions).toContain("team.invite");
    expect(actions).toContain("team.remove");
    const forbidden = page.events.find(
      (e) => e.action === "datasets.create" && e.outcome === "error" && e.transport === "trpc" && e.actor !== "olive@example.com",
    );
    expect(forbidden?.actor).toBe("vic@example.com");
    const viaGraphql = page.events.find((e) => e.action === "createDataset" && e.transport === "graphql");
    expect(viaGraphql).toMatchObject({ outcome: "error", actor: "vic@example.com", summary: { error: "FORBIDDEN" } });
    const set = page.events.find((e) => e.action === "providerKeys.set")!;
    expect(set.actor).toBe("olive@example.com");
    expect(set.userAgent).toBe("owner-browser/1");
    expect(JSON.stringify(page.events)).not.toContain("sk-secret-value-123456");
    expect(JSON.stringify(page.events)).not.toContain(key.apiKey);
    // GraphQL reads it too, by the contract's names.
    const g = await owner.gql("{ auditLog(first: 5) { edges { node { action actor resourceId createdAt } } } }");
    expect(g.errors).toBeUndefined();
    // Exported as JSON lines.
    const exp = await owner.client.team.auditExport.query({});
    const lines = exp.jsonl
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines.length).toBe(page.events.length);
    expect(lines[0]).toMatchObject({ action: page.events[0]!.action, actor: { label: page.events[0]!.actor } });
    // A key with every scope acts as an admin: it reads its project's audit log.
    const viaKey = await trpcClient(t).team.auditLog.query({ first: 5 });
    expect(viaKey.events.length).toBeGreaterThan(0);
  });

  test("an expired invitation is refused with a clear 400; a revoked one with 409", async () => {
    const inv = await owner.client.team.invite.mutate({ email: "late@example.com", role: "member" });
    await t.deps.database.db
      .update(invitations)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(invitations.id, inv.id));
    const b = consoleClient(t);
    const expired = await trpcFailure(b.client.session.acceptInvitation.mutate({ token: tokenOf(inv.url), password: "late password 123" }));
    expect(expired.data?.code).toBe("VALIDATION");
    expect(expired.message).toContain("expired");
    const again = await owner.client.team.invite.mutate({ email: "late@example.com", role: "member" });
    await owner.client.team.revokeInvitation.mutate({ id: again.id });
    const revoked = await trpcFailure(b.client.session.acceptInvitation.mutate({ token: tokenOf(again.url), password: "late password 123" }));
    expect(revoked.data?.code).toBe("CONFLICT");
    expect(revoked.message).toContain("revoked");
  });

  test("a person lists their sessions and ends one; a new password ends the others", async () => {
    const laptop = consoleClient(t, { userAgent: "laptop/1" });
    const phone = consoleClient(t, { userAgent: "phone/1" });
    await laptop.client.session.signInWithPassword.mutate({ email: "olive@example.com", password: PASSWORD });
    await phone.client.session.signInWithPassword.mutate({ email: "olive@example.com", password: PASSWORD });
    const listed = await laptop.client.session.list.query();
    expect(listed.filter((x) => x.current)).toHaveLength(1);
    const phoneSession = listed.find((x) => x.userAgent === "phone/1")!;
    expect(phoneSession.address).toBe("local");
    await laptop.client.session.revoke.mutate({ id: phoneSession.id });
    expect(await codeOf(phone.client.session.me.query())).toBe("UNAUTHORIZED");
    // Another person's session id is unknown here.
    expect(await codeOf(laptop.client.session.revoke.mutate({ id: "ses_not_mine" }))).toBe("NOT_FOUND");
    // A new password: the current password is asked for, and the other sessions end.
    expect(await codeOf(laptop.client.session.changePassword.mutate({ currentPassword: "wrong", newPassword: "a brand new password" }))).toBe("VALIDATION");
    const changed = await laptop.client.session.changePassword.mutate({ currentPassword: PASSWORD, newPassword: "a brand new password" });
    expect(changed.endedSessions).toBeGreaterThan(0);
    expect(await codeOf(owner.client.session.me.query())).toBe("UNAUTHORIZED");
    expect(await codeOf(laptop.client.session.me.query())).toBe("OK");
    await laptop.client.session.changePassword.mutate({ currentPassword: "a brand new password", newPassword: PASSWORD });
    owner = laptop;
  });

  test("the audit log is append-only; the retention purge alone deletes, past HONE_AUDIT_RETENTION_DAYS", async () => {
    const db = t.deps.database.db;
    const refused = async (q: ReturnType<typeof sql>) => {
      try {
        await db.execute(q);
        return "done";
      } catch (err) {
        return String((err as Error & { cause?: Error }).cause?.message ?? (err as Error).message);
      }
    };
    expect(await refused(sql`update audit_events set verb = 'tampered'`)).toContain("append-only");
    expect(await refused(sql`delete from audit_events`)).toContain("append-only");
    const count = async () => (await db.select({ n: count_() }).from(auditEvents))[0]!.n;
    const before = await count();
    await recordAudit(t.deps, {
      actor: { type: "admin" },
      projectId: null,
      transport: "cli",
      verb: "old.change",
      input: {},
      outcome: "ok",
      address: null,
      userAgent: null,
      requestId: null,
    });
    const days = t.deps.config.auditRetentionDays;
    // Old only by its date: the trigger refuses the update, so the row is written old in the first place.
    await db.execute(
      sql`insert into audit_events (id, at, actor_type, transport, verb, outcome) values ('aud_old', now() - make_interval(days => ${days + 1}), 'admin', 'cli', 'ancient.change', 'ok')`,
    );
    expect(await purgeOldAudit(t.deps)).toBe(1);
    expect(await count()).toBe(before + 1);
  });

  test("failed password sign-ins are slowed: after 10 in a minute, 429 with Retry-After, even for the right password", async () => {
    const b = consoleClient(t);
    // Three failures were counted earlier in this file (two sign-ins, one wrong current password):
    // the throttle starts at the 10th of the minute.
    const codes: string[] = [];
    for (let i = 0; i < 10; i++)
      codes.push(await codeOf(b.client.session.signInWithPassword.mutate({ email: "olive@example.com", password: `wrong password ${i}` })));
    expect(codes.filter((c) => c === "UNAUTHORIZED").length).toBe(7);
    expect(codes.slice(8)).toEqual(["RATE_LIMITED", "RATE_LIMITED"]);
    expect(await codeOf(b.client.session.signInWithPassword.mutate({ email: "olive@example.com", password: PASSWORD }))).toBe("RATE_LIMITED");
    const res = await t.request("POST", "/trpc/session.signInWithPassword", {
      body: { email: "olive@example.com", password: PASSWORD },
      key: null,
      headers: { "x-hone-console": "1" },
    });
    expect(res.status).toBe(429);
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
  });
});

describe("invitations by email, and key sign-in switched off", () => {
  let t2: TestApp;
  const smtp = startFakeSmtp();
  beforeAll(async () => {
    t2 = await createTestApp({
      env: { HONE_SMTP_URL: smtp.url, HONE_SMTP_FROM: "hone@acme.test", HONE_CONSOLE_KEY_SIGNIN: "false", HONE_PUBLIC_URL: "https://hone.acme.test" },
    });
  }, 60_000);
  afterAll(async () => {
    await t2.close();
    smtp.stop();
  });

  test("with HONE_SMTP_URL the invitation is emailed, with its link", async () => {
    const url = (await firstOwnerLink(t2.deps))!;
    const o = consoleClient(t2);
    await o.client.session.acceptInvitation.mutate({ token: tokenOf(url), email: "owner@acme.test", password: PASSWORD });
    const inv = await o.client.team.invite.mutate({ email: "new@acme.test", role: "member" });
    expect(inv.emailed).toBe(true);
    expect(smtp.messages).toHaveLength(1);
    expect(smtp.messages[0]!.to).toEqual(["new@acme.test"]);
    expect(smtp.messages[0]!.from).toBe("hone@acme.test");
    expect(smtp.messages[0]!.data.replace(/=\r?\n/g, "")).toContain(inv.url);
  });

  test("accepting an invitation as an existing account asks its password, under the sign-in throttle", async () => {
    const o = consoleClient(t2);
    await o.client.session.signInWithPassword.mutate({ email: "owner@acme.test", password: PASSWORD });
    // A second organisation would need another owner; here the existing account is invited again after removal.
    const inv = await o.client.team.invite.mutate({ email: "twice@acme.test", role: "viewer" });
    const first = consoleClient(t2);
    await first.client.session.acceptInvitation.mutate({ token: tokenOf(inv.url), password: "twice password 123" });
    const members = await o.client.team.members.query();
    await o.client.team.remove.mutate({ userId: members.find((m) => m.email === "twice@acme.test")!.userId });
    const again = await o.client.team.invite.mutate({ email: "twice@acme.test", role: "member" });
    const b = consoleClient(t2);
    expect((await b.client.session.invitation.query({ token: tokenOf(again.url) })).existingUser).toBe(true);
    const codes: string[] = [];
    for (let i = 0; i < 11; i++)
      codes.push(await codeOf(b.client.session.acceptInvitation.mutate({ token: tokenOf(again.url), password: `guess number ${i}` })));
    expect(codes.slice(0, 10)).toEqual(Array(10).fill("UNAUTHORIZED"));
    expect(codes[10]).toBe("RATE_LIMITED");
  });

  test("HONE_CONSOLE_KEY_SIGNIN=false: an API key cannot sign in to the console; the key still works as a bearer", async () => {
    const b = consoleClient(t2);
    const refused = await codeOf(b.client.session.signIn.mutate({ token: t2.project.apiKey }));
    expect(refused).toBe("FORBIDDEN");
    expect((await b.client.session.options.query()).keySignIn).toBe(false);
    expect(await codeOf(trpcClient(t2).datasets.list.query())).toBe("OK");
  });
});
