import { and, asc, eq, gt, inArray, isNull, isNotNull, sql } from "drizzle-orm";
import { orderedPage } from "../list-page";
import { dbOf, type Ctx, withTx } from "../context";
import { datasetEntries, entryVerdicts, monitors, relabelOutputs, relabelRuns } from "../../db/schema";
import { DomainError, notFound, parseInput } from "../../core/errors";
import { requireKeyMayCall, resolveModel, requireScope } from "../projects";
import { resolveCriterion } from "../criteria";
import { chargeAnswer } from "../answer-budget";
import { decodeCursor, ENTRY_SIZE, encodeCursor, entryContentHash, findDataset, withRejected } from "../datasets";
import { splitEntry } from "../chat";
import { enqueueJob } from "../jobs";
import {
  CreateRelabelRunInput,
  type DecideResult,
  DecideRelabelInput,
  ListRelabelRunsInput,
  type RelabelOutput,
  RelabelOutputsInput,
  type RelabelRun,
  RelabelRunIdInput,
} from "./schemas";

export const RELABEL_RUN_JOB = "relabel-run";
/** Entries one run relabels, at most. */
export const MAX_RUN_ENTRIES = 10_000;

type RunRow = typeof relabelRuns.$inferSelect;

async function findRun(ctx: Ctx, id: string): Promise<RunRow> {
  const [row] = await dbOf(ctx)
    .select()
    .from(relabelRuns)
    .where(and(eq(relabelRuns.id, id), eq(relabelRuns.projectId, ctx.projectId)));
  if (!row) throw notFound("Relabel run", id);
  return row;
}

async function withDecisions(ctx: Ctx, rows: RunRow[]): Promise<RelabelRun[]> {
  if (!rows.length) return [];
  const counts = await dbOf(ctx)
    .select({
      runId: relabelOutputs.runId,
      accepted: sql<number>`count(*) filter (where ${relabelOutputs.decision} = 'ACCEPTED')::int`,
      rejected: sql<number>`count(*) filter (where ${relabelOutputs.decision} = 'REJECTED')::int`,
      undecided: sql<number>`count(*) filter (where ${relabelOutputs.decision} is null and ${relabelOutputs.output} is not null)::int`,
      failed: sql<number>`count(*) filter (where ${relabelOutputs.error} is not null)::int`,
    })
    .from(relabelOutputs)
    .where(
      inArray(
        relabelOutputs.runId,
        rows.map((r) => r.id),
      ),
    )
    .groupBy(relabelOutputs.runId);
  const by = new Map(counts.map((c) => [c.runId, c]));
  return rows.map((r) => {
    const c = by.get(r.id);
    return {
      id: r.id,
      datasetId: r.datasetId,
      name: r.name,
      model: r.model,
      criteria: r.criteria,
      monitorId: r.monitorId,
      status: r.status,
      progress: { done: r.done, total: r.total },
      decisions: {
        accepted: Number(c?.accepted ?? 0),
        rejected: Number(c?.rejected ?? 0),
        undecided: Number(c?.undecided ?? 0),
        failed: Number(c?.failed ?? 0),
      },
      costUsd: r.costUsd,
      errorMessage: r.errorMessage,
      createdAt: r.createdAt,
      updatedAt: r.updatedAt,
    };
  });
}

/**
 * Starts a named relabel run: the model writes a new output for each entry (of the dataset, of
 * those a monitor added, or the ones named), and the criteria judge both the new and the current
 * output. Nothing changes in the dataset until outputs are accepted.
 */
export async function createRelabelRun(ctx: Ctx, raw: CreateRelabelRunInput): Promise<RelabelRun> {
  requireScope(ctx.actor, "write", "start relabel runs");
  const input = parseInput(CreateRelabelRunInput, raw);
  requireKeyMayCall(ctx, [input.model]);
  await findDataset(ctx, input.datasetId);
  resolveModel(input.model, ctx.deps.config.modelPrefixes);
  const criteria: string[] = [];
  for (const ref of input.criterionIds ?? []) {
    const c = await resolveCriterion(ctx, ref);
    criteria.push(`${c.criterionId}@v${c.version}`);
  }
  if (input.monitorId) {
    const [m] = await dbOf(ctx)
      .select({ id: monitors.id })
      .from(monitors)
      .where(and(eq(monitors.id, input.monitorId), eq(monitors.projectId, ctx.projectId)));
    if (!m) throw notFound("Monitor", input.monitorId);
  }
  const id = ctx.deps.ids("relabelRun");
  const now = ctx.deps.clock();
  const row = await withTx(ctx, async (inTx, tx) => {
    await tx.insert(relabelRuns).values({
      id,
      projectId: ctx.projectId,
      datasetId: input.datasetId,
      name: input.name ?? input.model,
      model: input.model,
      criteria,
      monitorId: input.monitorId ?? null,
      status: "QUEUED",
      createdAt: now,
      updatedAt: now,
    });
    const where = [eq(datasetEntries.datasetId, input.datasetId), eq(datasetEntries.projectId, ctx.projectId)];
    if (input.monitorId) where.push(eq(datasetEntries.monitorId, input.monitorId));
    if (input.entryIds) where.push(inArray(datasetEntries.id, input.entryIds));
    const picked = tx
      .select({
        runId: sql<string>`${id}::text`.as("run_id"),
        entryId: sql<string>`${datasetEntries.id}`.as("entry_id"),
        baseHash: sql<string>`${datasetEntries.contentHash}`.as("base_hash"),
        current: sql`case when ${datasetEntries.messages} -> -1 ->> 'role' = 'assistant' then ${datasetEntries.messages} -> -1 end`.as("current"),
      })
      .from(datasetEntries)
      .where(and(...where))
      .orderBy(asc(datasetEntries.id))
      .limit(MAX_RUN_ENTRIES);
    await tx.execute(sql`insert into ${relabelOutputs} (run_id, entry_id, base_hash, current) select run_id, entry_id, base_hash, current from (${picked}) p`);
    const [{ n }] = (await tx.select({ n: sql<number>`count(*)::int` }).from(relabelOutputs).where(eq(relabelOutputs.runId, id))) as [{ n: number }];
    if (Number(n) === 0)
      throw new DomainError("VALIDATION", "No entries to relabel: the dataset (or the monitor's or the named entries) holds none", {
        issues: [{ message: "no entries", path: ["datasetId"] }],
      });
    const [updated] = await tx
      .update(relabelRuns)
      .set({ total: Number(n) })
      .where(eq(relabelRuns.id, id))
      .returning();
    await enqueueJob(inTx, { kind: RELABEL_RUN_JOB, payload: { taskId: id }, maxAttempts: 10 });
    return updated!;
  });
  ctx.deps.jobs.nudge();
  return (await withDecisions(ctx, [row]))[0]!;
}

/** The project's relabel runs (of one dataset), newest first. */
export async function listRelabelRuns(ctx: Ctx, raw: { datasetId?: string | null; first?: number | null; after?: string | null } = {}): Promise<RelabelRun[]> {
  const input = parseInput(ListRelabelRunsInput, raw);
  const scope = eq(relabelRuns.projectId, ctx.projectId);
  const page = await orderedPage(
    ctx,
    { first: input.first, after: input.after },
    { table: relabelRuns, id: relabelRuns.id, scope, desc: true, what: "project's relabel runs" },
  );
  const where = [scope, page.after];
  if (input.datasetId) where.push(eq(relabelRuns.datasetId, input.datasetId));
  const rows = await dbOf(ctx)
    .select()
    .from(relabelRuns)
    .where(and(...where))
    .orderBy(...page.order)
    .limit(page.limit);
  return withDecisions(ctx, rows);
}

export async function getRelabelRun(ctx: Ctx, raw: { id: string }): Promise<RelabelRun> {
  const { id } = parseInput(RelabelRunIdInput, raw);
  return (await withDecisions(ctx, [await findRun(ctx, id)]))[0]!;
}

/** Stops a run: outputs not written yet are not; those written stay to be accepted or rejected. */
export async function cancelRelabelRun(ctx: Ctx, raw: { id: string }): Promise<RelabelRun> {
  requireScope(ctx.actor, "write", "cancel relabel runs");
  const { id } = parseInput(RelabelRunIdInput, raw);
  await findRun(ctx, id);
  await dbOf(ctx)
    .update(relabelRuns)
    .set({ status: "CANCELLED", updatedAt: ctx.deps.clock() })
    .where(and(eq(relabelRuns.id, id), inArray(relabelRuns.status, ["QUEUED", "RUNNING"])));
  return getRelabelRun(ctx, { id });
}

/** A page of a run's entries side by side: the input, the current output and the proposed one, each with its verdicts. */
export async function listRelabelOutputs(
  ctx: Ctx,
  raw: RelabelOutputsInput,
): Promise<{ outputs: RelabelOutput[]; endCursor: string | null; hasNextPage: boolean }> {
  const input = parseInput(RelabelOutputsInput, raw);
  await findRun(ctx, input.id);
  const first = Math.min(input.first ?? 50, ctx.deps.config.maxPageSize);
  const where = [eq(relabelOutputs.runId, input.id)];
  if (input.after) where.push(gt(relabelOutputs.entryId, decodeCursor(input.after)));
  if (input.decision === "UNDECIDED") where.push(isNull(relabelOutputs.decision));
  else if (input.decision) where.push(eq(relabelOutputs.decision, input.decision));
  // Sized first and charged to the answer (the entry, its current and its proposed output), then loaded.
  const sized = await dbOf(ctx)
    .select({
      entryId: relabelOutputs.entryId,
      size: sql<number>`(${ENTRY_SIZE} + coalesce(octet_length(${relabelOutputs.output}::text), 0) + coalesce(octet_length(${relabelOutputs.current}::text), 0))::int`,
    })
    .from(relabelOutputs)
    .innerJoin(datasetEntries, eq(datasetEntries.id, relabelOutputs.entryId))
    .where(and(...where))
    .orderBy(asc(relabelOutputs.entryId))
    .limit(first + 1);
  const keys = sized.slice(0, first);
  chargeAnswer(
    ctx,
    keys.reduce((n, r) => n + Number(r.size), 0),
    "ask for fewer outputs (first)",
  );
  const page = keys.length
    ? await dbOf(ctx)
        .select({ o: relabelOutputs, messages: datasetEntries.messages, hash: datasetEntries.contentHash })
        .from(relabelOutputs)
        .innerJoin(datasetEntries, eq(datasetEntries.id, relabelOutputs.entryId))
        .where(
          and(
            eq(relabelOutputs.runId, input.id),
            inArray(
              relabelOutputs.entryId,
              keys.map((k) => k.entryId),
            ),
          ),
        )
        .orderBy(asc(relabelOutputs.entryId))
    : [];
  const rows = sized;
  return {
    outputs: page.map(({ o, messages, hash }) => ({
      entryId: o.entryId,
      input: splitEntry(messages).input,
      current: o.current,
      proposed: o.output,
      error: o.error,
      currentVerdicts: o.currentVerdicts,
      proposedVerdicts: o.verdicts,
      decision: o.decision,
      stale: o.decision === null && o.baseHash !== hash,
    })),
    endCursor: page.length ? encodeCursor(page.at(-1)!.o.entryId) : null,
    hasNextPage: rows.length > first,
  };
}

/**
 * Accepts proposed outputs (the named entries, or every undecided one): each entry's final
 * assistant turn becomes the proposal, its first original stays in originalMessages, the output it
 * had becomes a rejected output (preference data), and the proposal's verdicts become the entry's.
 * An entry changed since the run read it is left as it is (counted stale).
 */
export async function acceptRelabelOutputs(ctx: Ctx, raw: DecideRelabelInput): Promise<DecideResult> {
  requireScope(ctx.actor, "write", "accept relabelled outputs");
  const input = parseInput(DecideRelabelInput, raw);
  const run = await findRun(ctx, input.id);
  const result: DecideResult = { accepted: 0, rejected: 0, stale: 0 };
  for (;;) {
    const n = await withTx(ctx, async (_inTx, tx) => {
      const where = [eq(relabelOutputs.runId, run.id), isNull(relabelOutputs.decision), isNotNull(relabelOutputs.output)];
      if (input.entryIds) where.push(inArray(relabelOutputs.entryId, input.entryIds));
      const rows = await tx
        .select({ o: relabelOutputs, e: datasetEntries })
        .from(relabelOutputs)
        .innerJoin(datasetEntries, eq(datasetEntries.id, relabelOutputs.entryId))
        .where(and(...where))
        .orderBy(asc(relabelOutputs.entryId))
        .limit(200)
        .for("update", { of: [datasetEntries] });
      const now = ctx.deps.clock();
      for (const { o, e } of rows) {
        if (e.contentHash !== o.baseHash) {
          // Changed since the run read it: accepting would undo that change. Rejected, and said.
          await tx
            .update(relabelOutputs)
            .set({ decision: "REJECTED", decidedAt: now })
            .where(and(eq(relabelOutputs.runId, run.id), eq(relabelOutputs.entryId, e.id)));
          result.stale++;
          continue;
        }
        const { input: head, reference } = splitEntry(e.messages);
        const next = [...head, o.output!];
        const rejected = reference
          ? withRejected(e.rejectedOutputs, { message: reference, source: "relabel", ref: run.id, at: now.toISOString() })
          : e.rejectedOutputs;
        await tx
          .update(datasetEntries)
          .set({
            messages: next,
            originalMessages: sql`coalesce(${datasetEntries.originalMessages}, ${datasetEntries.messages})`,
            relabeledBy: `${run.name} (${run.model})`,
            relabeledAt: now,
            rejectedOutputs: rejected,
            contentHash: entryContentHash({
              messages: next as never,
              tools: e.tools as never,
              tool_choice: e.toolChoice as never,
              response_format: e.responseFormat as never,
            }),
          })
          .where(eq(datasetEntries.id, e.id));
        // The entry's verdicts judged the output it had: the proposal's replace them.
        for (const v of o.verdicts) {
          const criterionId = v.criterionId.split("@")[0]!;
          await tx.delete(entryVerdicts).where(and(eq(entryVerdicts.entryId, e.id), eq(entryVerdicts.criterionId, criterionId)));
          if (!v.error) {
            await tx
              .insert(entryVerdicts)
              .values({ entryId: e.id, criterionId, version: v.version, judgement: v.judgement, explanation: v.explanation, error: null, createdAt: now });
          }
        }
        await tx
          .update(relabelOutputs)
          .set({ decision: "ACCEPTED", decidedAt: now })
          .where(and(eq(relabelOutputs.runId, run.id), eq(relabelOutputs.entryId, e.id)));
        result.accepted++;
      }
      return rows.length;
    });
    if (n < 200) break;
  }
  return result;
}

/** Rejects proposed outputs (the named entries, or every undecided one): the entries stay as they are. */
export async function rejectRelabelOutputs(ctx: Ctx, raw: DecideRelabelInput): Promise<DecideResult> {
  requireScope(ctx.actor, "write", "reject relabelled outputs");
  const input = parseInput(DecideRelabelInput, raw);
  const run = await findRun(ctx, input.id);
  const where = [eq(relabelOutputs.runId, run.id), isNull(relabelOutputs.decision)];
  if (input.entryIds) where.push(inArray(relabelOutputs.entryId, input.entryIds));
  const rows = await dbOf(ctx)
    .update(relabelOutputs)
    .set({ decision: "REJECTED", decidedAt: ctx.deps.clock() })
    .where(and(...where))
    .returning({ entryId: relabelOutputs.entryId });
  return { accepted: 0, rejected: rows.length, stale: 0 };
}
