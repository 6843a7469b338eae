import {
  acceptRelabelOutputs,
  cancelRelabelRun,
  createRelabelRun,
  CreateRelabelRunInput,
  DecideRelabelInput,
  getRelabelRun,
  ListRelabelRunsInput,
  listRelabelOutputs,
  listRelabelRuns,
  type RelabelRun,
  RelabelOutputsInput,
  RelabelRunIdInput,
  rejectRelabelOutputs,
} from "../../../domain/relabel-runs";
import { toWireDate } from "../../dates";
import { projectProcedure, router } from "../init";

const runOut = (r: RelabelRun) => ({ ...r, createdAt: toWireDate(r.createdAt), updatedAt: toWireDate(r.updatedAt) });

export const relabelRunsRouter = router({
  list: projectProcedure.input(ListRelabelRunsInput).query(async ({ ctx, input }) => (await listRelabelRuns(ctx.project, input)).map(runOut)),
  get: projectProcedure.input(RelabelRunIdInput).query(async ({ ctx, input }) => runOut(await getRelabelRun(ctx.project, input))),
  create: projectProcedure.input(CreateRelabelRunInput).mutation(async ({ ctx, input }) => runOut(await createRelabelRun(ctx.project, input))),
  cancel: projectProcedure.input(RelabelRunIdInput).mutation(async ({ ctx, input }) => runOut(await cancelRelabelRun(ctx.project, input))),
  /** A page of the run's entries side by side: input, current and proposed output, with verdicts. */
  outputs: projectProcedure.input(RelabelOutputsInput).query(({ ctx, input }) => listRelabelOutputs(ctx.project, input)),
  /** Some entries (entryIds) or every undecided one. */
  accept: projectProcedure.input(DecideRelabelInput).mutation(({ ctx, input }) => acceptRelabelOutputs(ctx.project, input)),
  reject: projectProcedure.input(DecideRelabelInput).mutation(({ ctx, input }) => rejectRelabelOutputs(ctx.project, input)),
});
