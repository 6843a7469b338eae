import {
  DeleteLogsInput,
  deleteLogs,
  countLogs,
  CountLogsInput,
  exportLogsPage,
  ExportLogsPageInput,
  setLogTags,
  SetLogTagsInput,
  getLogDetail,
  ListLogsInput,
  listLogs,
  listTagKeys,
  listLogFacets,
  listTagValues,
  ListTagValuesInput,
  LogIdInput,
  logUsage,
  UsageInput,
  type RequestLog,
} from "../../../domain/logs";
import { logDatesOut, toWireDate } from "../../dates";
import { projectProcedure, router } from "../init";

const logOut = <L extends RequestLog>(l: L) => logDatesOut(l);

export const logsRouter = router({
  list: projectProcedure.input(ListLogsInput).query(async ({ ctx, input }) => {
    const page = await listLogs(ctx.project, input);
    return { ...page, logs: page.logs.map(logOut) };
  }),
  /** How many logs match: exact up to 10,000, an estimate beyond (`exact: false`). */
  count: projectProcedure.input(CountLogsInput).query(({ ctx, input }) => countLogs(ctx.project, input)),
  /** Tag keys of the newest 2,000 logs, most frequent first (filter-bar suggestions). */
  tagKeys: projectProcedure.query(({ ctx }) => listTagKeys(ctx.project)),
  /** Models and providers of the newest 2,000 logs, most frequent first (filter-bar suggestions). */
  facets: projectProcedure.query(({ ctx }) => listLogFacets(ctx.project)),
  /** The most frequent values of one tag key in the newest 2,000 logs. */
  tagValues: projectProcedure.input(ListTagValuesInput).query(({ ctx, input }) => listTagValues(ctx.project, input)),
  /** Requests, errors, tokens, cost and p50/p95 latency per hour or day, split by model, provider, source or a tag. */
  usage: projectProcedure.input(UsageInput).query(async ({ ctx, input }) => {
    const u = await logUsage(ctx.project, input);
    return {
      ...u,
      from: toWireDate(u.from),
      to: toWireDate(u.to),
      series: u.series.map((p) => ({ ...p, start: toWireDate(p.start) })),
    };
  }),
  /** Adds, replaces or removes tags on every log matching the filter (or the selection, filter.ids). */
  setTags: projectProcedure.input(SetLogTagsInput).mutation(({ ctx, input }) => setLogTags(ctx.project, input)),
  /** One page of a JSONL export: a line (a JSON object with columns and payloads) per log. */
  exportPage: projectProcedure.input(ExportLogsPageInput).query(({ ctx, input }) => exportLogsPage(ctx.project, input)),
  /** Deletes the logs matching a filter, in batches (done: false: call again); an empty filter needs all: true. */
  deleteByFilter: projectProcedure.input(DeleteLogsInput).mutation(({ ctx, input }) => deleteLogs(ctx.project, input)),
  /** The log with its payloads (and, for converted reports, the originals), the dataset entries it fed and its criteria results. */
  get: projectProcedure.input(LogIdInput).query(async ({ ctx, input }) => logOut(await getLogDetail(ctx.project, input))),
});
