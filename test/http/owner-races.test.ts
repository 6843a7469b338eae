import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, count, eq, isNull } from "drizzle-orm";
import { memberships, users } from "../../src/db/schema";
import { startPersonSession } from "../../src/domain/sessions";
import { firstOwnerLink } from "../../src/domain/teams";
import { createTestApp, type TestApp } from "../helpers/app";
import { consoleClient, trpcFailure } from "../helpers/trpc";

// Two owners taking each other's ownership away at the same moment, through the real transports:
// whatever the interleaving, one owner remains and the refused call says why. On PGlite (one
// connection) the transactions run one after the other; on Postgres they truly race.

const ROUNDS = 20;
const PASSWORD = "correct horse battery staple";
const tokenOf = (url: string) => url.slice(url.indexOf("#") + 1);

let t: TestApp;
let org: string;
const ids = { a: "", b: "" };

beforeAll(async () => {
  t = await createTestApp({ env: { HONE_API_KEY_CACHE_MS: "0" } });
  const first = consoleClient(t);
  const me = await first.client.session.acceptInvitation.mutate({
    token: tokenOf((await firstOwnerLink(t.deps))!),
    email: "first@example.com",
    password: PASSWORD,
    organizationName: "Races",
  });
  org = me.organization!.id;
  for (const who of ["a", "b"] as const) {
    const inv = await first.client.team.invite.mutate({ email: `${who}@example.com`, role: "owner" });
    const joined = await consoleClient(t).client.session.acceptInvitation.mutate({ token: tokenOf(inv.url), password: PASSWORD });
    ids[who] = joined.user!.id;
  }
  // Two owners exactly: the first steps down to admin.
  await first.client.team.updateRole.mutate({ userId: me.user!.id, role: "admin" });
}, 60_000);
afterAll(async () => {
  await t.close();
});

/** Each round starts from the same place: a and b enabled owners with fresh sessions. */
async function reset() {
  const db = t.deps.database.db;
  for (const id of [ids.a, ids.b]) {
    await db
      .insert(memberships)
      .values({ organizationId: org, userId: id, role: "owner" })
      .onConflictDoUpdate({ target: [memberships.organizationId, memberships.userId], set: { role: "owner" } });
    await db.update(users).set({ disabledAt: null }).where(eq(users.id, id));
  }
  const session = async (userId: string) => {
    const c = consoleClient(t);
    const started = await startPersonSession(t.deps, db, { userId, organizationId: org, address: "local", userAgent: null });
    c.jar.cookie = `hone_session=${started.token}`;
    return c;
  };
  return { a: await session(ids.a), b: await session(ids.b) };
}

async function enabledOwners(): Promise<number> {
  const [row] = await t.deps.database.db
    .select({ n: count() })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(and(eq(memberships.organizationId, org), eq(memberships.role, "owner"), isNull(users.disabledAt)));
  return row!.n;
}

type Outcome = { ok: true } | { ok: false; code: string; status: number; message: string };

const viaTrpc = async (p: Promise<unknown>): Promise<Outcome> => {
  try {
    await p;
    return { ok: true };
  } catch {
    const err = await trpcFailure(p);
    return { ok: false, code: err.data!.code, status: err.data!.httpStatus, message: err.message };
  }
};

const viaGraphql = async (p: Promise<{ errors?: { message: string; extensions?: { code?: string } }[] }>): Promise<Outcome> => {
  const res = await p;
  const e = res.errors?.[0];
  if (!e) return { ok: true };
  const code = e.extensions?.code ?? "INTERNAL";
  // GraphQL answers 200 with the error: its code stands for the status a REST client would get.
  const status = { CONFLICT: 409, FORBIDDEN: 403, UNAUTHORIZED: 401, VALIDATION: 400 }[code] ?? 500;
  return { ok: false, code, status, message: e.message };
};

const DEMOTE = 'mutation($u: ID!) { updateMemberRole(userId: $u, role: "admin") { userId role } }';
const REMOVE = "mutation($u: ID!) { removeMember(userId: $u) }";

async function race(name: string, pair: (s: Awaited<ReturnType<typeof reset>>) => [Promise<Outcome>, Promise<Outcome>]) {
  const problems: string[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const outcomes = await Promise.all(pair(await reset()));
    const owners = await enabledOwners();
    if (owners < 1) problems.push(`${name} round ${round}: no owner left (${JSON.stringify(outcomes)})`);
    const ok = outcomes.filter((o) => o.ok).length;
    if (ok !== 1) problems.push(`${name} round ${round}: ${ok} calls went through (${JSON.stringify(outcomes)})`);
    for (const o of outcomes) {
      if (o.ok) continue;
      // Refused: for want of an owner left (409), or because the caller is no longer one (403), or
      // no longer signed in at all (401): a clear client error either way, never a 500.
      if (!["CONFLICT", "FORBIDDEN", "UNAUTHORIZED"].includes(o.code) || o.status < 400 || o.status >= 500) {
        problems.push(`${name} round ${round}: refused with ${o.code} ${o.status}: ${o.message}`);
      }
      if (o.code === "CONFLICT" && !o.message.includes("at least one owner")) problems.push(`${name} round ${round}: unclear message: ${o.message}`);
    }
  }
  expect(problems).toEqual([]);
}

describe("no organisation without an owner", () => {
  test("two owners demoting each other at once (GraphQL and tRPC)", async () => {
    await race("demote/demote", (s) => [
      viaGraphql(s.a.gql(DEMOTE, { u: ids.b })),
      viaTrpc(s.b.client.team.updateRole.mutate({ userId: ids.a, role: "admin" })),
    ]);
  }, 120_000);

  test("two owners removing each other at once (tRPC and GraphQL)", async () => {
    await race("remove/remove", (s) => [viaTrpc(s.a.client.team.remove.mutate({ userId: ids.b })), viaGraphql(s.b.gql(REMOVE, { u: ids.a }))]);
  }, 120_000);

  test("one owner demoting the other while the other disables the first", async () => {
    await race("demote/disable", (s) => [
      viaGraphql(s.a.gql(DEMOTE, { u: ids.b })),
      viaTrpc(s.b.client.team.setDisabled.mutate({ userId: ids.a, disabled: true })),
    ]);
  }, 120_000);

  test("a disabled owner does not count: the last enabled owner can be neither demoted nor removed", async () => {
    const s = await reset();
    await s.a.client.team.setDisabled.mutate({ userId: ids.b, disabled: true });
    const demote = await viaTrpc(s.a.client.team.updateRole.mutate({ userId: ids.a, role: "admin" }));
    expect(demote).toMatchObject({ ok: false, code: "CONFLICT", status: 409 });
    expect((demote as { message: string }).message).toContain("at least one owner");
    expect(await viaGraphql(s.a.gql(REMOVE, { u: ids.a }))).toMatchObject({ ok: false, code: "CONFLICT" });
    expect(await enabledOwners()).toBe(1);
    // Enabled again, b counts again: a may step down.
    await s.a.client.team.setDisabled.mutate({ userId: ids.b, disabled: false });
    expect(await viaTrpc(s.a.client.team.updateRole.mutate({ userId: ids.a, role: "admin" }))).toMatchObject({ ok: true });
  });
});
