import { eq } from "drizzle-orm";
import type { Ctx } from "../context";
import { models } from "../../db/schema";
import type { Deps } from "../deps";
import type { TrainingProgress } from "../../providers/trainers";
import { type DomainError, toDomainError } from "../../core/errors";
import { runTaskStep, type StepResult, type StepTools, type TaskKind } from "../jobs";
import { forgetCredentials, getProviderApiKey } from "../projects";
import { preferenceLines, trainingEntries } from "../datasets";
import { pruneMessages } from "../pruning";
import { tokenCounter } from "../token-counter";
import { backendTarget, moveModel, type ModelRow, isFinal } from "../models";
import type { ModelStatus } from "../models";

/**
 * The TRAIN entries of a dataset in the chat fine-tuning format (tool calls included), or for DPO
 * their preference pairs; TEST is held out.
 */
async function trainingJsonl(
  ctx: Ctx,
  row: ModelRow & { datasetId: string },
): Promise<{ jsonl: string; count: number; prunedTokens: number | null; ruleTokens: number[] | null }> {
  const lines: string[] = [];
  const rules = row.pruningRules;
  // The tokens each rule's text costs, to say what pruning saved.
  const countTokens = rules.length ? await tokenCounter() : null;
  const ruleTokens = rules.map((r) => countTokens?.(r) ?? 0);
  let pruned = 0;
  const prune = (messages: unknown[]) => {
    const p = pruneMessages(messages, rules);
    p.removed.forEach((n, i) => {
      pruned += n * ruleTokens[i]!;
    });
    return p.messages;
  };
  if (row.method === "dpo") {
    for await (const e of preferenceLines(ctx, row.datasetId, { excludeFailing: row.excludeFailing, split: "TRAIN" })) {
      lines.push(JSON.stringify(rules.length ? { ...e, input: { ...e.input, messages: prune(e.input.messages) } } : e));
    }
  } else {
    for await (const e of trainingEntries(ctx, row.datasetId, row.excludeFailing))
      lines.push(JSON.stringify(rules.length ? { ...e, messages: prune(e.messages) } : e));
  }
  return { jsonl: `${lines.join("\n")}\n`, count: lines.length, prunedTokens: rules.length ? pruned : null, ruleTokens: rules.length ? ruleTokens : null };
}

/** Points a model's training curve keeps (the latest steps). */
const MAX_CURVE_POINTS = 2_000;

/**
 * Merges the backend's newest metrics into the model's curve (by step) and takes its checkpoints.
 * A backend that cannot say (an error, an older API) leaves the curve as it was: training goes on.
 */
async function recordProgress(deps: Deps, row: ModelRow, read: () => Promise<TrainingProgress>): Promise<void> {
  try {
    const p = await read();
    const byStep = new Map(row.trainingCurve.map((x) => [x.step, x]));
    for (const x of p.points) byStep.set(x.step, { ...byStep.get(x.step), ...x });
    const curve = [...byStep.values()].sort((a, b) => a.step - b.step).slice(-MAX_CURVE_POINTS);
    const checkpoints = p.checkpoints.length ? [...p.checkpoints].sort((a, b) => a.step - b.step) : row.checkpoints;
    await deps.database.db.update(models).set({ trainingCurve: curve, checkpoints }).where(eq(models.id, row.id));
  } catch (err) {
    deps.logger.warn("could not read a fine-tune's progress", { modelId: row.id, error: toDomainError(err).message });
  }
}

/** The TRAINING event of a job that started and finished between two polls. */
export const TRAINING_UNSEEN = "Not seen running: the job started and finished between two polls; dated when it was seen done";

/** A failure that retrying cannot fix: the upstream said no (4xx), or a key is missing. */
function isPermanent(err: DomainError): boolean {
  const s = err.details.upstreamStatus;
  return err.code === "VALIDATION" || err.code === "NOT_FOUND" || (typeof s === "number" && s >= 400 && s < 500 && s !== 408 && s !== 429);
}

/**
 * One step of a fine-tune, run by the job queue: PENDING uploads the TRAIN entries and creates the
 * upstream job (-> QUEUED); QUEUED and TRAINING poll it (-> TRAINING, DEPLOYED or ERROR). Each
 * step starts from what is stored, so running it again after a crash is safe.
 */
export async function advanceFineTune(deps: Deps, input: { modelId: string; lastAttempt: boolean }): Promise<StepResult> {
  return runTaskStep(deps, FINE_TUNE_TASK, input.modelId, (row, step) => trainStep(deps, row, step, input.lastAttempt));
}

// A fine-tune has no separate "running" mark: its statuses (QUEUED, TRAINING) follow the upstream job.
const FINE_TUNE_TASK: TaskKind<ModelRow> = {
  job: "fine-tune",
  load: async (deps, id) => (await deps.database.db.select().from(models).where(eq(models.id, id)))[0],
  isFinal: (row) => isFinal(row.status as ModelStatus),
  markFailed: async (deps, row, message) => {
    await moveModel(deps.database.db, row, "ERROR", { errorMessage: message }, deps.clock());
  },
};

async function trainStep(deps: Deps, row: ModelRow, { ctx, fail }: StepTools, lastAttempt: boolean): Promise<StepResult> {
  const status = row.status as ModelStatus;
  const poll = { runAgainInMs: deps.config.fineTunePollMs };
  // Hone's own trainers lease their jobs (domain/trainers); no job of this kind is made for them.
  if (row.backend === "trainer") return { done: true };
  try {
    // A fine-tune's first step reads the key afresh: one just fixed (a retry after a refused key)
    // may have been set in another process, or thread, than the one running this job.
    if (status === "PENDING") forgetCredentials(deps, row.projectId);
    const apiKey = await getProviderApiKey(ctx, row.backend);
    const trainer = deps.trainers(backendTarget(deps.config, { ...row, backend: row.backend }, apiKey));

    if (status === "PENDING") {
      if (!row.datasetId) return fail("The dataset was deleted before training started");
      let fileId = row.trainingFileId;
      if (!fileId) {
        const { jsonl, count, prunedTokens, ruleTokens } = await trainingJsonl(ctx, { ...row, datasetId: row.datasetId });
        if (count === 0)
          return fail(
            row.method === "dpo"
              ? "The dataset's TRAIN entries hold no preference pairs (rejected outputs) to train on"
              : "The dataset has no TRAIN entries left to train on",
          );
        fileId = await trainer.uploadTrainingFile(jsonl, `${row.slug}.jsonl`);
        await deps.database.db
          .update(models)
          .set({ trainingFileId: fileId, trainingEntries: count, prunedTokens, pruningRuleTokens: ruleTokens, updatedAt: deps.clock() })
          .where(eq(models.id, row.id));
      }
      const jobId = await trainer.createJob({
        fileId,
        baseModel: row.baseModel,
        hyperparameters: row.hyperparameters,
        suffix: row.slug.slice(0, 40),
        method: row.method === "dpo" ? { type: "dpo", beta: row.dpoBeta } : { type: "sft" },
      });
      await moveModel(deps.database.db, row, "QUEUED", { upstreamJobId: jobId, trainingFileId: fileId }, deps.clock());
      return poll;
    }

    const state = await trainer.getJob(row.upstreamJobId!);
    if (state.status !== "queued") await recordProgress(deps, row, () => trainer.getProgress(row.upstreamJobId!));
    if (state.status === "succeeded") {
      if (!state.modelId) return fail("Training succeeded but the backend named no model");
      let current = row;
      if (status === "QUEUED") {
        // The job ran and finished between two polls: it did train, so the timeline says so, dated
        // when Hone saw it (the backends do not say when training started) and marked as such.
        await moveModel(deps.database.db, row, "TRAINING", {}, deps.clock(), TRAINING_UNSEEN);
        current = { ...row, status: "TRAINING" };
      }
      await moveModel(deps.database.db, current, "DEPLOYED", { upstreamModelId: state.modelId, errorMessage: null }, deps.clock());
      return { done: true };
    }
    if (state.status === "failed" || state.status === "cancelled") return fail(state.error ?? `Training ${state.status}`);
    if (state.status === "running" && status === "QUEUED") await moveModel(deps.database.db, row, "TRAINING", {}, deps.clock());
    return poll;
  } catch (err) {
    const e = toDomainError(err);
    // The backend's status stays with its words: what the model page's hint is chosen by.
    const status = e.details.upstreamStatus;
    const said = typeof status === "number" && !e.message.includes(String(status)) ? `${e.message} (${row.backend} answered HTTP ${status})` : e.message;
    if (isPermanent(e) || lastAttempt) return fail(said);
    throw err; // transient: the queue retries with backoff
  }
}
