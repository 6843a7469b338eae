import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { alignmentRows, alignmentRuns, evaluationResults, evaluations, models } from "../../src/db/schema";
import { createTestApp, type TestApp } from "../helpers/app";
import { createCriterion, createDataset, qa } from "../helpers/factories";
import { gql, gqlData } from "../helpers/gql";
import { rest } from "../helpers/rest";
import { trpcClient } from "../helpers/trpc";
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

  test("criteria { alignmentRows(first) }: a page of every criterion's set in the same three queries, however many are listed", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      const id = (await createCriterion(t, { name: `rows-${i}` })).id;
      ids.push(id);
      await t.deps.database.db.insert(alignmentRows).values(
        Array.from({ length: 5 }, (_, j) => ({
          id: `alr_${i}_${j}_${id}`,
          criterionId: id,
          messages: [{ role: "user", content: `q${j}` }],
          output: { role: "assistant", content: `a${j}` },
        })),
      );
    }
    const ask = (first: number) =>
      captureQueries(t.deps.database.db, () =>
        gqlData<{ criteria: { id: string; alignmentRows: { id: string }[] }[] }>(
          t,
          `query($n: Int) { criteria(first: $n) { id alignmentRows(first: 3) { id } } }`,
          {
            n: first,
          },
        ),
      );
    const two = await ask(2);
    const six = await ask(6);
    const rowQueries = (qs: string[]) => qs.filter((q) => /alignment_rows|alignment_verdicts/.test(q)).length;
    expect(rowQueries(six.queries)).toBe(rowQueries(two.queries));
    expect(rowQueries(six.queries)).toBe(3);
    // Newest criteria first; each with the first 3 of its 5 rows, oldest first.
    expect(six.result.criteria.map((c) => c.id)).toEqual([...ids].reverse());
    for (const c of six.result.criteria) expect(c.alignmentRows.map((r) => r.id)).toEqual([0, 1, 2].map((j) => `alr_${ids.indexOf(c.id)}_${j}_${c.id}`));
    // The next page of one criterion's set, after its third row.
    const one = await gqlData<{ criterion: { alignmentRows: { id: string }[] } }>(
      t,
      `query($id: ID!, $after: String) { criterion(id: $id) { alignmentRows(after: $after) { id } } }`,
      {
        id: ids[0],
        after: `alr_0_2_${ids[0]}`,
      },
    );
    expect(one.criterion.alignmentRows.map((r) => r.id)).toEqual([`alr_0_3_${ids[0]}`, `alr_0_4_${ids[0]}`]);
  });

  test("evaluations { summary results(first) }: the same queries for a page of evaluations, whatever its size", async () => {
    const ds = await createDataset(t, { name: "evals", entries: [qa("q", "a")] });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const id = t.deps.ids("evaluation");
      ids.push(id);
      await t.deps.database.db.insert(evaluations).values({
        id,
        projectId: t.project.projectId,
        datasetId: ds,
        models: ["m-a", "m-b"],
        criteria: [{ criterionId: "crit_x", version: 1 }],
        status: "DONE",
        total: 6,
      });
      await t.deps.database.db.insert(evaluationResults).values(
        ["e1", "e2", "e3"].flatMap((entryId) =>
          ["m-a", "m-b"].map((model) => ({
            evaluationId: id,
            entryId: `dse_${entryId}`,
            model,
            output: { role: "assistant", content: `${entryId} ${model}` },
            verdicts: { crit_x: { status: "success", score: model === "m-a" ? 1 : 0 } },
            latencyMs: 10,
          })),
        ),
      );
    }
    type Out = { evaluations: { id: string; summary: { model: string; passRate: number | null }[]; results: { entryId: string; model: string }[] }[] };
    const ask = (n: number) =>
      captureQueries(t.deps.database.db, () =>
        gqlData<Out>(t, `query($n: Int) { evaluations(first: $n) { id summary { model passRate } results(first: 4) { entryId model } } }`, { n }),
      );
    const two = await ask(2);
    const five = await ask(5);
    const resultQueries = (qs: string[]) => qs.filter((q) => /evaluation_results/.test(q)).length;
    expect(resultQueries(five.queries)).toBe(resultQueries(two.queries));
    expect(resultQueries(five.queries)).toBeLessThanOrEqual(4);
    expect(five.result.evaluations).toHaveLength(5);
    for (const e of five.result.evaluations) {
      expect(e.summary).toEqual([
        { model: "m-a", passRate: 1 },
        { model: "m-b", passRate: 0 },
      ]);
      expect(e.results.map((r) => `${r.entryId}/${r.model}`)).toEqual(["dse_e1/m-a", "dse_e1/m-b", "dse_e2/m-a", "dse_e2/m-b"]);
    }
    // The next page after the cursor of the last one, on GraphQL and tRPC alike.
    const next = await gqlData<{ evaluation: { results: { entryId: string; model: string }[] } }>(
      t,
      `query($id: ID!) { evaluation(id: $id) { results(first: 4, after: "dse_e2/m-b") { entryId model } } }`,
      { id: ids[0] },
    );
    expect(next.evaluation.results.map((r) => `${r.entryId}/${r.model}`)).toEqual(["dse_e3/m-a", "dse_e3/m-b"]);
    const viaTrpc = await trpcClient(t).evaluations.results.query({ id: ids[0]!, model: "m-b", first: 2 });
    expect(viaTrpc.map((r) => r.entryId)).toEqual(["dse_e1", "dse_e2"]);
  });

  test("top-level lists are pages: first, after, the HONE_MAX_PAGE_SIZE ceiling, on GraphQL, tRPC and REST", async () => {
    const p = await t.createProject("pages");
    const made: string[] = [];
    for (let i = 0; i < 5; i++) made.push(await createDataset(t, { name: `page-${i}`, key: p.apiKey }));
    const newest = [...made].reverse();
    const page1 = await gqlData<{ datasets: { id: string }[] }>(t, "{ datasets(first: 2) { id } }", {}, { key: p.apiKey });
    expect(page1.datasets.map((d) => d.id)).toEqual(newest.slice(0, 2));
    const page2 = await gqlData<{ datasets: { id: string }[] }>(
      t,
      "query($a: String) { datasets(first: 2, after: $a) { id } }",
      { a: newest[1] },
      { key: p.apiKey },
    );
    expect(page2.datasets.map((d) => d.id)).toEqual(newest.slice(2, 4));
    for (const field of ["datasets", "criteria", "models", "evaluations"]) {
      const over = await gql(t, `{ ${field}(first: 201) { id } }`, {}, { key: p.apiKey });
      expect(over.errors?.[0]?.extensions?.code).toBe("VALIDATION");
      expect(over.errors?.[0]?.message).toContain("HONE_MAX_PAGE_SIZE");
    }
    const trpc = trpcClient(t, p.apiKey);
    expect((await trpc.datasets.list.query({ first: 3 })).map((d) => d.id)).toEqual(newest.slice(0, 3));
    expect((await trpc.datasets.list.query({ after: newest[2] })).map((d) => d.id)).toEqual(newest.slice(3));
    expect(await trpc.criteria.list.query({ first: 1 })).toEqual([]);
    const api = rest(t);
    const r1 = await api.ok("GET /datasets", { key: p.apiKey, query: { limit: "2" } });
    expect(r1.data.map((d) => d.id)).toEqual(newest.slice(0, 2));
    expect(r1.has_more).toBe(true);
    const r2 = await api.ok("GET /datasets", { key: p.apiKey, query: { limit: "4", after: newest[1]! } });
    expect(r2.data.map((d) => d.id)).toEqual(newest.slice(2));
    expect(r2.has_more).toBe(false);
    for (const limit of ["0", "abc", "201"]) {
      const bad = await api.fail("GET /datasets", { key: p.apiKey, query: { limit } });
      expect(bad.status).toBe(400);
      expect(JSON.stringify(bad.body)).toContain("limit");
    }
  });
});
