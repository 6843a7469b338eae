import { ListPageInput } from "../../../domain/list-page";
import {
  createOnlineEval,
  CreateOnlineEvalInput,
  deleteOnlineEval,
  getOnlineEval,
  listOnlineEvals,
  type OnlineEval,
  OnlineEvalIdInput,
  passRates,
  PassRatesInput,
  updateOnlineEval,
  UpdateOnlineEvalInput,
} from "../../../domain/online-evals";
import { toWireDate } from "../../dates";
import { projectProcedure, router } from "../init";

const evalOut = (e: OnlineEval) => ({ ...e, createdAt: toWireDate(e.createdAt), updatedAt: toWireDate(e.updatedAt) });

export const onlineEvalsRouter = router({
  list: projectProcedure.input(ListPageInput).query(async ({ ctx, input }) => (await listOnlineEvals(ctx.project, input)).map(evalOut)),
  get: projectProcedure.input(OnlineEvalIdInput).query(async ({ ctx, input }) => evalOut(await getOnlineEval(ctx.project, input))),
  create: projectProcedure.input(CreateOnlineEvalInput).mutation(async ({ ctx, input }) => evalOut(await createOnlineEval(ctx.project, input))),
  /** Changes its criteria, sample rate or alert, or pauses (status PAUSED) and resumes (ACTIVE) it. */
  update: projectProcedure.input(UpdateOnlineEvalInput).mutation(async ({ ctx, input }) => evalOut(await updateOnlineEval(ctx.project, input))),
  delete: projectProcedure.input(OnlineEvalIdInput).mutation(({ ctx, input }) => deleteOnlineEval(ctx.project, input)),
  /** Pass rates over time by model, route or route version (routes' judged samples and models' online evaluations). */
  passRates: projectProcedure.input(PassRatesInput).query(async ({ ctx, input }) => {
    const r = await passRates(ctx.project, input);
    return {
      ...r,
      from: toWireDate(r.from),
      to: toWireDate(r.to),
      series: r.series.map((p) => ({ ...p, start: toWireDate(p.start) })),
    };
  }),
});
