import { domainLogFilter } from "../../log-filter-wire";
import { logUsage, type Usage, type UsageFigures, type UsageGroup, type UsagePoint, UsageInput } from "../../../domain/logs";
import { asInputOf } from "../../../core/verb-input";
import { builder, projectCtx } from "../builder";
import { selects } from "../selects";
import { ClassFigureRef, LogFilterInput } from "./logs";
import { classFigures } from "../../../domain/pricing";

type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;

const figureFields = <T extends UsageFigures>(t: PothosSchemaTypes.ObjectFieldBuilder<Types, T>) => ({
  requests: t.int({ resolve: (f) => f.requests }),
  errors: t.int({ description: "Calls with no status (null or 0) or a status >= 400", resolve: (f) => f.errors }),
  inputTokens: t.float({ resolve: (f) => f.inputTokens }),
  outputTokens: t.float({ resolve: (f) => f.outputTokens }),
  costUsd: t.float({ resolve: (f) => f.costUsd }),
  classes: t.field({
    type: [ClassFigureRef],
    description: "Tokens and cost per billed class, in bill order (logs written before classes were kept add to costUsd only)",
    resolve: (f) => classFigures(f.classes),
  }),
  unpriced: t.int({ description: "Answered calls with no plain cost: no token counts, or no price for their model", resolve: (f) => f.unpriced }),
  refused: t.int({ description: "Calls Hone refused before any upstream: limits, budgets, allowed models, scopes", resolve: (f) => f.refused }),
  p50Ms: t.float({ nullable: true, resolve: (f) => f.p50Ms }),
  p95Ms: t.float({ nullable: true, resolve: (f) => f.p95Ms }),
});

const UsageFiguresRef = builder.objectRef<UsageFigures>("UsageFigures").implement({ fields: figureFields });

const UsageGroupRef = builder.objectRef<UsageGroup>("UsageGroup").implement({
  fields: (t) => ({
    group: t.exposeString("group", { nullable: true, description: "The model/provider/source/tag value; null when none was recorded" }),
    other: t.exposeBoolean("other", { description: "True for the group summing everything past the top 20" }),
    ...figureFields(t),
  }),
});

const UsagePointRef = builder.objectRef<UsagePoint>("UsagePoint").implement({
  fields: (t) => ({
    start: t.field({ type: "DateTime", resolve: (p) => p.start, description: "Start of the bucket (UTC)" }),
    group: t.exposeString("group", { nullable: true }),
    other: t.exposeBoolean("other"),
    ...figureFields(t),
  }),
});

const UsageRef = builder.objectRef<Usage>("Usage").implement({
  description: "Calls, errors, tokens, cost and latency per hour or day; sums equal the logs exactly",
  fields: (t) => ({
    bucket: t.exposeString("bucket"),
    from: t.field({ type: "DateTime", resolve: (u) => u.from }),
    to: t.field({ type: "DateTime", resolve: (u) => u.to }),
    series: t.field({ type: [UsagePointRef], resolve: (u) => u.series }),
    groups: t.field({ type: [UsageGroupRef], resolve: (u) => u.groups }),
    totals: t.field({ type: UsageFiguresRef, resolve: (u) => u.totals }),
  }),
});

builder.queryFields((t) => ({
  usage: t.field({
    type: UsageRef,
    description: "The project's usage over [from, to): per hour (range up to 31 days) or day (up to 400 days), optionally split",
    args: {
      from: t.arg.string({ description: "ISO 8601, inclusive" }),
      to: t.arg.string({ description: "ISO 8601, exclusive" }),
      bucket: t.arg.string({ description: "hour or day" }),
      groupBy: t.arg.string({ required: false, description: "none (default), model, provider, source, api (the protocol), tag, route or routeVersion" }),
      tagKey: t.arg.string({ required: false, description: "the metadata key, with groupBy: tag" }),
      filter: t.arg({ type: LogFilterInput, required: false }),
    },
    // The verb parses its input: GraphQL strings go in as they are.
    resolve: (_, args, c, info) =>
      logUsage(
        projectCtx(c),
        // The token classes are summed only when the query selects them.
        asInputOf(UsageInput, { ...args, groupBy: args.groupBy ?? undefined, filter: domainLogFilter(args.filter), classes: selects(info, "classes") }),
      ),
  }),
}));
