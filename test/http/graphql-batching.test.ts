import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { alignmentRuns, models } from "../../src/db/schema";
import { createTestApp, type TestApp } from "../helpers/app";
import { createCriterion, createDataset, qa } from "../helpers/factories";
import { gqlData } from "../helpers/gql";
import { captureQueries } from "../helpers/queries";

// Nested lists under a list of parents are one batched query, however many parents there are.
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe("GraphQL batching", () => {
  test("datasets { models }: one query for the models of every dataset listed", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push(await createDataset(t, { name: `ds-${i}`, entries: [qa("q", "a")] }));
    const now = new Date();
    // Two fine-tunes on each of the first three datasets.
    for (const [i, datasetId] of ids.slice(0, 3).entries()) {
      for (const v of [1, 2]) {
        await t.deps.database.db.insert(models).values({
          id: t.deps.ids("model"),
          projectId: t.project.projectId,
          slug: `ft-${i}-${v}`,
          datasetId,
          baseModel: "gpt-4o-mini-2024-07-18",
          backend: "openai",
          status: "DEPLOYED",
          createdAt: now,
          updatedAt: now,
        });
      }
    }
    const { result, queries } = await captureQueries(t.deps.database.db, () =>
      gqlData<{ datasets: { id: string; models: { slug: string }[] }[] }>(t, "{ datasets { id models { slug } } }"),
    );
    // The datasets page, then the models of all six at once (none per dataset).
    expect(queries.filter((q) => /from "datasets"/.test(q))).toHaveLength(1);
    const modelQueries = queries.filter((q) => /from "models"/.test(q) && !/from "datasets"/.test(q));
    expect(modelQueries).toHaveLength(1);
    expect(modelQueries[0]).toContain(" in (");
    const bySlugs = Object.fromEntries(result.datasets.map((d) => [d.id, d.models.map((m) => m.slug).sort()]));
    expect(bySlugs[ids[0]!]).toEqual(["ft-0-1", "ft-0-2"]);
    expect(bySlugs[ids[2]!]).toEqual(["ft-2-1", "ft-2-2"]);
    expect(bySlugs[ids[5]!]).toEqual([]);
  });

  test("criteria { alignmentRuns }: one query for the runs of every criterion listed, another project's never", async () => {
    const stats = (version: number, rows: number) => ({
      version,
      rows,
      precision: 1,
      recall: 1,
      f1: 1,
      truePositives: rows,
      falsePositives: 0,
      falseNegatives: 0,
      trueNegatives: 0,
      judgeErrors: 0,
      warning: null,
    });
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push((await createCriterion(t, { name: `c-${i}` })).id);
    for (const [i, criterionId] of ids.entries()) {
      await t.deps.database.db.insert(alignmentRuns).values({ criterionId, version: 1, stats: stats(1, 10 + i), createdAt: new Date() });
    }
    const other = await t.createProject("other");
    const theirs = (await createCriterion(t, { name: "theirs", key: other.apiKey })).id;
    await t.deps.database.db.insert(alignmentRuns).values({ criterionId: theirs, version: 1, stats: stats(1, 99), createdAt: new Date() });

    const { result, queries } = await captureQueries(t.deps.database.db, () =>
      gqlData<{ criteria: { id: string; alignmentRuns: { version: number; rows: number }[] }[] }>(t, "{ criteria { id alignmentRuns { version rows } } }"),
    );
    expect(queries.filter((q) => /from "alignment_runs"/.test(q))).toHaveLength(1);
    const rowsOf = Object.fromEntries(result.criteria.map((c) => [c.id, c.alignmentRuns.map((r) => r.rows)]));
    expect(ids.map((id) => rowsOf[id])).toEqual([[10], [11], [12], [13]]);
    expect(rowsOf[theirs]).toBeUndefined();
  });

  test("routes { stats }: two queries for the figures of every route listed", async () => {
    for (const slug of ["r1", "r2", "r3"]) {
      await gqlData(
        t,
        `mutation($slug: String!) { createRoute(input: {slug: $slug, groups: [{targets: [{model: "openai:gpt-4o-mini", weight: 100}]}]}) { id } }`,
        {
          slug,
        },
      );
    }
    const { result, queries } = await captureQueries(t.deps.database.db, () =>
      gqlData<{ routes: { slug: string; stats: unknown[] }[] }>(t, "{ routes { slug stats { version requests passRate } } }"),
    );
    expect(result.routes.map((r) => r.slug)).toEqual(["r1", "r2", "r3"]);
    expect(queries.filter((q) => /from request_logs/.test(q))).toHaveLength(1);
    expect(queries.filter((q) => /from "route_verdicts"/.test(q))).toHaveLength(1);
  });
});
