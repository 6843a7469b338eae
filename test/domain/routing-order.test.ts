import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Ctx, systemCtx } from "../../src/domain/context";
import { startAttempt } from "../../src/domain/routing/circuits";
import { orderTargets, type RoutingPlan } from "../../src/domain/routing";
import { createTestApp, type TestApp } from "../helpers/app";

// The order a routed call tries its targets in: balancing within a group, open circuits last.
let t: TestApp;
let ctx: Ctx;
beforeAll(async () => {
  t = await createTestApp({ env: { HONE_CIRCUIT_FAILURES: "3" } });
  ctx = { ...systemCtx(t.deps, "test"), projectId: t.project.projectId };
});
afterAll(() => t.close());

const plan = (balance: "weighted" | "least-busy", weights: [number, number], sticky: string | null = null): RoutingPlan => ({
  groups: [
    {
      balance,
      targets: [
        { model: "a", weight: weights[0] },
        { model: "b", weight: weights[1] },
      ],
    },
    { balance: "weighted", targets: [{ model: "z", weight: 100 }] },
  ],
  attempts: 1,
  sticky,
  route: "r",
});
const order = (p: RoutingPlan) => orderTargets(ctx, p).map((x) => x.model);

describe("orderTargets", () => {
  test("least-busy: the target with fewer calls in flight per weight first; the next group after", () => {
    const ends = [startAttempt(ctx, "a"), startAttempt(ctx, "a"), startAttempt(ctx, "b")];
    expect(order(plan("least-busy", [50, 50]))).toEqual(["b", "a", "z"]);
    // Per unit of weight: a has 2 in flight at weight 80 (0.025), b 1 at weight 20 (0.05).
    expect(order(plan("least-busy", [80, 20]))).toEqual(["a", "b", "z"]);
    for (const end of ends) end(false);
  });

  test("weighted: a weight of 0 is never drawn; a sticky value always draws the same order", () => {
    for (let i = 0; i < 50; i++) expect(order(plan("weighted", [0, 100]))).toEqual(["b", "z"]);
    const first = order(plan("weighted", [50, 50], "user-7"));
    for (let i = 0; i < 20; i++) expect(order(plan("weighted", [50, 50], "user-7"))).toEqual(first);
  });

  test("an open circuit puts its target after every other, the next groups' included", () => {
    for (let i = 0; i < 3; i++) startAttempt(ctx, "a")(true);
    for (let i = 0; i < 20; i++) expect(order(plan("weighted", [99, 1]))).toEqual(["b", "z", "a"]);
  });
});
