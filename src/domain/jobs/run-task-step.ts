import type { Ctx } from "../context";
import type { Deps } from "../deps";

/** What a job step tells the queue: the task is over, or run the next step after a pause. */
export type StepResult = { done: true } | { runAgainInMs: number };

/** How the step skeleton reads and moves one kind of background task (its table and statuses). */
export type TaskKind<Row extends { id: string; projectId: string }> = {
  /** The system actor's job; also prefixes the request id that the task's logged calls carry. */
  job: string;
  load(deps: Deps, id: string): Promise<Row | undefined>;
  /** Finished, failed or cancelled: a step has nothing left to do. */
  isFinal(row: Row): boolean;
  /** Moves a task that has not started yet to running (on its first step). */
  markRunning?(deps: Deps, row: Row): Promise<void>;
  /** Ends the task in ERROR with a message its owner can read. */
  markFailed(deps: Deps, row: Row, message: string): Promise<void>;
};

/** What a step's work gets: the system context on the task's project, and a way to end in ERROR. */
export type StepTools = { ctx: Ctx; fail(message: string): Promise<{ done: true }> };

type TaskStep<Row> = (row: Row, step: StepTools) => Promise<StepResult>;

/**
 * One step of a background task (evaluation, dataset quality task, fine-tune), the part every kind
 * shares: load the task (gone or final: nothing to do), act as the system on the task's project,
 * mark it running on its first step, then do one chunk of work, which answers done or run again
 * and may end the task in ERROR through `fail`. A step starts from what is stored, so running one
 * again after a crash is safe.
 */
export async function runTaskStep<Row extends { id: string; projectId: string }>(
  deps: Deps,
  kind: TaskKind<Row>,
  id: string,
  work: TaskStep<Row>,
): Promise<StepResult> {
  const row = await kind.load(deps, id);
  if (!row || kind.isFinal(row)) return { done: true };
  const ctx: Ctx = { deps, actor: { type: "system", job: kind.job }, projectId: row.projectId, requestId: `${kind.job}-${row.id}` };
  await kind.markRunning?.(deps, row);
  const fail = async (message: string) => {
    await kind.markFailed(deps, row, message);
    return { done: true } as const;
  };
  return work(row, { ctx, fail });
}
