import { models } from "../../src/db/schema";
import { expect } from "bun:test";
import type { TestApp } from "./app";
import { gqlData } from "./gql";
import { rest } from "./rest";
import { waitFor } from "./wait-for";

// Setup through the public API, as a client would, so tests need no knowledge of the tables.

type Split = "TRAIN" | "TEST";
export type EntryInput = { messages: unknown[]; split?: Split; [field: string]: unknown };

/** A user question and the assistant's answer as one dataset entry. */
export const qa = (q: string, a: string, split: Split = "TRAIN"): EntryInput => ({
  messages: [
    { role: "user", content: q },
    { role: "assistant", content: a },
  ],
  split,
});

/** Creates a dataset (REST) and adds `entries`, checking all were stored. Returns its id. */
export async function createDataset(t: TestApp, opts: { name?: string; entries?: EntryInput[]; key?: string } = {}): Promise<string> {
  const res = await t.request("POST", "/api/v1/datasets", { body: { name: opts.name ?? "dataset" }, key: opts.key });
  const id = ((await res.json()) as { id: string }).id;
  if (opts.entries?.length) await addEntries(t, id, opts.entries, opts.key);
  return id;
}

/** Adds entries to a dataset (REST), checking all were stored. */
export async function addEntries(t: TestApp, datasetId: string, entries: EntryInput[], key?: string): Promise<void> {
  const res = await t.request("POST", `/api/v1/datasets/${datasetId}/entries`, { body: { entries }, key });
  expect(((await res.json()) as { entries_created: number }).entries_created).toBe(entries.length);
}

export type CreatedCriterion = { id: string; name: string; latestVersion: number };

/** Creates a criterion (GraphQL) judged by `judgeModel`; fails the test on any error. */
export async function createCriterion(t: TestApp, opts: { name?: string; judgeModel?: string; prompt?: string; key?: string } = {}): Promise<CreatedCriterion> {
  const data = await gqlData<{ createCriterion: CreatedCriterion }>(
    t,
    `mutation($name: String!, $model: String!, $prompt: String!) {
      createCriterion(input: {name: $name, judgeModel: $model, prompt: $prompt}) { id name latestVersion } }`,
    { name: opts.name ?? "c", model: opts.judgeModel ?? "openai:judge", prompt: opts.prompt ?? "Good answer? {{output}}" },
    { key: opts.key },
  );
  return data.createCriterion;
}

const TASK = `query($id: ID!) { datasetTask(id: $id) { status progress { done total } errorMessage } }`;
export type DatasetTask = { status: string; progress: { done: number; total: number }; errorMessage: string | null };

/** Waits until a dataset task (judge, relabel) has ended, DONE or ERROR, and returns it. */
export async function waitForDatasetTask(t: TestApp, id: string, opts: { timeoutMs?: number; key?: string } = {}): Promise<DatasetTask> {
  return waitFor(async () => (await gqlData<{ datasetTask: DatasetTask }>(t, TASK, { id }, { key: opts.key })).datasetTask, {
    until: (task) => task.status === "DONE" || task.status === "ERROR",
    timeoutMs: opts.timeoutMs ?? 15_000,
    message: (last) => `dataset task ${id} to end (status ${last?.status})`,
  });
}

/** Waits until a fine-tuned model (REST GET /models/:slug) reaches one of `statuses`, and returns its body. */
export async function waitForModelStatus(t: TestApp, slug: string, statuses: string[], opts: { timeoutMs?: number; key?: string } = {}) {
  return waitFor(() => rest(t).ok("GET /models/:modelSlug", { params: { modelSlug: slug }, key: opts.key }), {
    until: (m) => statuses.includes(m.hone.status),
    timeoutMs: opts.timeoutMs ?? 10_000,
    message: (last) => `model ${slug} to reach ${statuses.join("|")} (stuck in ${last?.hone?.status})`,
  });
}

/** A fine-tune in the DEPLOYED state, served by the OpenAI backend as `ft:<base>:hone:<slug>:x1`. */
export async function createDeployedModel(t: TestApp, slug: string, baseModel = "gpt-4o-mini-2024-07-18"): Promise<void> {
  const now = new Date();
  await t.deps.database.db.insert(models).values({
    id: t.deps.ids("model"),
    projectId: t.project.projectId,
    slug,
    baseModel,
    backend: "openai",
    status: "DEPLOYED",
    upstreamModelId: `ft:${baseModel}:hone:${slug}:x1`,
    createdAt: now,
    updatedAt: now,
  });
}
