import { models } from "../../src/db/schema";
import type { TestApp } from "./app";

// Factories for the things most tests need first. Each goes through the public API where one
// exists (so it also proves that path), except a deployed fine-tune, which only training makes:
// that row is written directly, in the state training leaves it.

/** A dataset of the test's project (or `key`'s), with `entries` added when given. */
export async function createDataset(t: TestApp, opts: { name?: string; entries?: unknown[]; key?: string } = {}): Promise<string> {
  const res = await t.request("POST", "/api/v1/datasets", { body: { name: opts.name ?? "dataset" }, key: opts.key });
  if (res.status !== 200) throw new Error(`createDataset: ${res.status} ${await res.text()}`);
  const id = ((await res.json()) as { id: string }).id;
  if (opts.entries?.length) {
    const added = await t.request("POST", `/api/v1/datasets/${id}/entries`, { body: { entries: opts.entries }, key: opts.key });
    if (added.status !== 200) throw new Error(`createDataset entries: ${added.status} ${await added.text()}`);
  }
  return id;
}

/** A criterion (an LLM judge); its prompt must hold {{output}}. */
export async function createCriterion(t: TestApp, opts: { name?: string; judgeModel?: string; prompt?: string; key?: string } = {}): Promise<string> {
  const r = await t.gql(
    "mutation($n: String!, $m: String!, $p: String!) { createCriterion(input: {name: $n, judgeModel: $m, prompt: $p}) { id } }",
    { n: opts.name ?? "criterion", m: opts.judgeModel ?? "openai:judge", p: opts.prompt ?? "Good answer? {{output}}" },
    opts.key,
  );
  if (r.errors) throw new Error(`createCriterion: ${JSON.stringify(r.errors)}`);
  return r.data.createCriterion.id;
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
