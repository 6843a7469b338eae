import { and, desc, eq, inArray, sql } from "drizzle-orm";
import { z } from "zod";
import { type Ctx, dbOf, withTx } from "../context";
import { datasetEntries, maskingBackfills, requestLogs, storedResponses, traceSpans } from "../../db/schema";
import type { Deps } from "../deps";
import { DomainError, notFound, parseInput } from "../../core/errors";
import { MAX_ID_LENGTH } from "../../core/limits";
import { enqueueJob, runTaskStep, type StepResult, type TaskKind } from "../jobs";
import { maskingFor, projectMasking } from "../masking";
import { maskStoredLogs } from "../logs";
import { maskStoredEntries } from "../datasets";
import { maskStoredResponses } from "../protocols";
import { maskStoredSpans } from "../traces";
import { requireFullKey } from "../projects";
import { NoInput, verb } from "../verb";

// Masking what a project stored before its rule (docs/masking.md "What was stored before"): a
// background task goes through the project's logs (newest first), then its dataset entries, then
// its stored Responses, then its trace spans, a batch per step, rewriting each with placeholders of
// the kinds its rule masks (every kind when it has none). It resumes where it was after a restart (`cursor`); its
// start is audited as any mutation; one runs at a time per project.

export const MASK_BACKFILL_JOB = "masking-backfill";
/** Rows per step: logs carry payloads of up to HONE_MAX_LOGGED_PAYLOAD_BYTES each. */
const BATCH = { logs: 100, entries: 200, responses: 50, spans: 200 } as const;
const NEXT = { logs: "entries", entries: "responses", responses: "spans", spans: null } as const;

type Row = typeof maskingBackfills.$inferSelect;
export type MaskingBackfill = Omit<Row, "projectId" | "cursor">;
const toBackfill = ({ projectId: _p, cursor: _c, ...rest }: Row): MaskingBackfill => rest;

export const startMaskingBackfill = verb({
  name: "startMaskingBackfill",
  description:
    "Masks what the project stored before its masking rule (logs, dataset entries, stored Responses, trace spans), in the background, with the kinds its rule masks (every kind when it has none); follow it with maskingBackfill",
  kind: "mutation",
  role: "admin",
  input: NoInput,
  run: async (ctx: Ctx): Promise<MaskingBackfill> => {
    requireFullKey(ctx.actor, "mask stored data");
    const db = dbOf(ctx);
    const [running] = await db
      .select({ id: maskingBackfills.id })
      .from(maskingBackfills)
      .where(and(eq(maskingBackfills.projectId, ctx.projectId), inArray(maskingBackfills.status, ["QUEUED", "RUNNING"])))
      .limit(1);
    if (running) throw new DomainError("CONFLICT", `Stored data is being masked already (${running.id}): wait for it to finish`);
    const rule = await maskingFor(ctx, { keyId: null, models: [] });
    const count = async (table: typeof requestLogs | typeof datasetEntries | typeof storedResponses | typeof traceSpans) =>
      Number((await db.select({ n: sql<number>`count(*)::int` }).from(table).where(eq(table.projectId, ctx.projectId)))[0]?.n ?? 0);
    const total = (await count(requestLogs)) + (await count(datasetEntries)) + (await count(storedResponses)) + (await count(traceSpans));
    const id = ctx.deps.ids("maskingBackfill");
    const now = ctx.deps.clock();
    const [row] = await withTx(ctx, async (inTx, tx) => {
      const inserted = await tx
        .insert(maskingBackfills)
        .values({
          id,
          projectId: ctx.projectId,
          status: "QUEUED",
          phase: "logs",
          kinds: rule.mode === "off" ? null : rule.kinds,
          total,
          createdAt: now,
          updatedAt: now,
        })
        .returning();
      await enqueueJob(inTx, { kind: MASK_BACKFILL_JOB, payload: { taskId: id }, maxAttempts: 10 });
      return inserted;
    });
    ctx.deps.jobs.nudge();
    return toBackfill(row!);
  },
});

const BackfillIdInput = z.strictObject({ id: z.string().min(1).max(MAX_ID_LENGTH) });

export const getMaskingBackfill = verb({
  name: "maskingBackfill",
  description: "A masking of stored data: its status, phase (logs, entries, responses) and progress",
  kind: "query",
  role: "viewer",
  input: BackfillIdInput,
  run: async (ctx: Ctx, raw: z.input<typeof BackfillIdInput>): Promise<MaskingBackfill> => {
    const input = parseInput(BackfillIdInput, raw);
    const [row] = await dbOf(ctx)
      .select()
      .from(maskingBackfills)
      .where(and(eq(maskingBackfills.projectId, ctx.projectId), eq(maskingBackfills.id, input.id)));
    if (!row) throw notFound("Masking backfill", input.id);
    return toBackfill(row);
  },
});

export const listMaskingBackfills = verb({
  name: "maskingBackfills",
  description: "The project's maskings of stored data, newest first (the last 20)",
  kind: "query",
  role: "viewer",
  input: NoInput,
  run: async (ctx: Ctx): Promise<MaskingBackfill[]> =>
    (await dbOf(ctx).select().from(maskingBackfills).where(eq(maskingBackfills.projectId, ctx.projectId)).orderBy(desc(maskingBackfills.id)).limit(20)).map(
      toBackfill,
    ),
});

const TASK: TaskKind<Row> = {
  job: MASK_BACKFILL_JOB,
  load: async (deps, id) => (await deps.database.db.select().from(maskingBackfills).where(eq(maskingBackfills.id, id)))[0],
  isFinal: (t) => t.status === "DONE" || t.status === "ERROR",
  markRunning: async (deps, t) => {
    if (t.status === "QUEUED")
      await deps.database.db.update(maskingBackfills).set({ status: "RUNNING", updatedAt: deps.clock() }).where(eq(maskingBackfills.id, t.id));
  },
  markFailed: async (deps, t, message) => {
    await deps.database.db
      .update(maskingBackfills)
      .set({ status: "ERROR", errorMessage: message, updatedAt: deps.clock() })
      .where(eq(maskingBackfills.id, t.id));
  },
};

export async function failMaskingBackfill(deps: Deps, input: { taskId: string; reason: string }): Promise<void> {
  const row = await TASK.load(deps, input.taskId);
  if (row && !TASK.isFinal(row)) await TASK.markFailed(deps, row, input.reason);
}

/** One step: the next batch of the phase; a phase that is through moves to the next. */
export async function runMaskingBackfillStep(deps: Deps, input: { taskId: string }): Promise<StepResult> {
  return runTaskStep(deps, TASK, input.taskId, async (task, { ctx }) => {
    const { recognizers } = await projectMasking(ctx);
    const common = { limit: BATCH[task.phase], recognizers, kinds: task.kinds ?? null };
    const r =
      task.phase === "logs"
        ? await maskStoredLogs(ctx, { ...common, before: task.cursor })
        : task.phase === "entries"
          ? await maskStoredEntries(ctx, { ...common, after: task.cursor })
          : task.phase === "responses"
            ? await maskStoredResponses(ctx, { ...common, after: task.cursor })
            : await maskStoredSpans(ctx, { ...common, after: task.cursor });
    const through = !r.more;
    const next = through ? NEXT[task.phase] : task.phase;
    await dbOf(ctx)
      .update(maskingBackfills)
      .set({
        done: sql`${maskingBackfills.done} + ${r.read}`,
        changed: sql`${maskingBackfills.changed} + ${r.changed}`,
        phase: next ?? task.phase,
        cursor: through ? null : r.last,
        ...(through && next === null ? { status: "DONE" as const } : {}),
        updatedAt: deps.clock(),
      })
      .where(eq(maskingBackfills.id, task.id));
    return through && next === null ? { done: true } : { runAgainInMs: 0 };
  });
}
