import {
  createOnlineEval,
  CreateOnlineEvalInput,
  deleteOnlineEval,
  getOnlineEval,
  listOnlineEvals,
  type OnlineEval,
  type PassRateGroup,
  type PassRates,
  passRates,
  PassRatesInput,
  updateOnlineEval,
  UpdateOnlineEvalInput,
} from "../../../domain/online-evals";
import { asInputOf } from "../../../core/verb-input";
import { builder, projectCtx } from "../builder";

const OnlineEvalRef = builder.objectRef<OnlineEval>("OnlineEval").implement({
  description: "A share of the application's calls to a model judged by criteria after they answered (never in the client's path)",
  fields: (t) => ({
    id: t.exposeID("id"),
    model: t.exposeString("model", { description: "As logs spell it (openai:gpt-4o-mini)" }),
    criteria: t.exposeStringList("criteria", { description: "Criterion ids (optionally @vN): a call passes when every one passes" }),
    sampleRate: t.exposeFloat("sampleRate"),
    alertBelow: t.exposeFloat("alertBelow", { nullable: true, description: "The pass rate (last hour) below which the webhook is alerted" }),
    alertMinJudged: t.exposeInt("alertMinJudged", { description: "Judged calls in that hour before an alert" }),
    status: t.exposeString("status", { description: "ACTIVE or PAUSED" }),
    judged: t.exposeInt("judged", { description: "Calls judged over the last 24 hours" }),
    passRate: t.exposeFloat("passRate", { nullable: true, description: "The share of them that passed (null: none judged)" }),
    createdAt: t.field({ type: "DateTime", resolve: (e) => e.createdAt }),
    updatedAt: t.field({ type: "DateTime", resolve: (e) => e.updatedAt }),
  }),
});

const PassRateGroupRef = builder.objectRef<PassRateGroup>("PassRateGroup").implement({
  fields: (t) => ({
    group: t.exposeString("group", { nullable: true, description: "The model, route or route@version (null: none)" }),
    judged: t.exposeInt("judged", { description: "Answers with a verdict" }),
    passed: t.exposeInt("passed"),
    passRate: t.exposeFloat("passRate", { nullable: true }),
    errors: t.exposeInt("errors", { description: "Samples no judge could judge" }),
  }),
});
const PassRatePointRef = builder.objectRef<PassRates["series"][number]>("PassRatePoint").implement({
  fields: (t) => ({
    start: t.field({ type: "DateTime", resolve: (p) => p.start }),
    group: t.exposeString("group", { nullable: true }),
    judged: t.exposeInt("judged"),
    passed: t.exposeInt("passed"),
    passRate: t.exposeFloat("passRate", { nullable: true }),
    errors: t.exposeInt("errors"),
  }),
});
const PassRatesRef = builder.objectRef<PassRates>("PassRates").implement({
  description: "Online evaluation's pass rates: routes' judged samples and models' online evaluations",
  fields: (t) => ({
    from: t.field({ type: "DateTime", resolve: (r) => r.from }),
    to: t.field({ type: "DateTime", resolve: (r) => r.to }),
    bucketMs: t.exposeInt("bucketMs"),
    series: t.field({ type: [PassRatePointRef], description: "By bucket, then group; buckets without a judged sample left out", resolve: (r) => r.series }),
    groups: t.field({ type: [PassRateGroupRef], description: "Over the whole window, most judged first (at most 50)", resolve: (r) => r.groups }),
  }),
});

const CreateOnlineEvalInputRef = builder.inputType("CreateOnlineEvalInput", {
  fields: (t) => ({
    model: t.string({ description: "The model, as a client names it" }),
    criteria: t.stringList({ description: "Criterion ids (optionally @vN), 1 to 3" }),
    sampleRate: t.float({ description: "The share of calls judged, above 0 and at most 1" }),
    alertBelow: t.float({ required: false, description: "Alert when the last hour's pass rate falls below this share" }),
    alertMinJudged: t.int({ required: false, description: "Judged calls in that hour before an alert (default 20)" }),
    paused: t.boolean({ required: false }),
  }),
});

const UpdateOnlineEvalInputRef = builder.inputType("UpdateOnlineEvalInput", {
  fields: (t) => ({
    id: t.id(),
    criteria: t.stringList({ required: false }),
    sampleRate: t.float({ required: false }),
    alertBelow: t.float({ required: false, description: "A threshold, or null to stop alerting (absent: unchanged)" }),
    alertMinJudged: t.int({ required: false }),
    status: t.string({ required: false, description: "ACTIVE (resume) or PAUSED" }),
  }),
});

builder.queryFields((t) => ({
  onlineEvals: t.field({
    type: [OnlineEvalRef],
    description:
      "A page of the project's online evaluations (at most 100, one per model), oldest first: at most `first` (default and ceiling HONE_MAX_PAGE_SIZE), after `after` (an id)",
    args: { first: t.arg.int({ required: false }), after: t.arg.string({ required: false }) },
    resolve: (_, a, c) => listOnlineEvals(projectCtx(c), { first: a.first, after: a.after }),
  }),
  onlineEval: t.field({ type: OnlineEvalRef, args: { id: t.arg.id() }, resolve: (_, args, c) => getOnlineEval(projectCtx(c), { id: String(args.id) }) }),
  passRates: t.field({
    type: PassRatesRef,
    description: "Pass rates of online evaluation over a window (default: the last 24 hours, at most 31 days), by model, route or route version",
    args: {
      from: t.arg({ type: "DateTime", required: false }),
      to: t.arg({ type: "DateTime", required: false }),
      groupBy: t.arg.string({ required: false, description: "none, model (default), route or routeVersion" }),
    },
    resolve: (_, args, c) => passRates(projectCtx(c), asInputOf(PassRatesInput, { from: args.from, to: args.to, groupBy: args.groupBy ?? undefined })),
  }),
}));

builder.mutationFields((t) => ({
  createOnlineEval: t.field({
    type: OnlineEvalRef,
    args: { input: t.arg({ type: CreateOnlineEvalInputRef }) },
    resolve: (_, { input }, c) => createOnlineEval(projectCtx(c), asInputOf(CreateOnlineEvalInput, input)),
  }),
  updateOnlineEval: t.field({
    type: OnlineEvalRef,
    args: { input: t.arg({ type: UpdateOnlineEvalInputRef }) },
    resolve: (_, { input }, c) => updateOnlineEval(projectCtx(c), asInputOf(UpdateOnlineEvalInput, { ...input, id: String(input.id) })),
  }),
  deleteOnlineEval: t.field({
    type: "String",
    description: "Stops judging the model (its verdicts stay). Returns its id",
    args: { id: t.arg.id() },
    resolve: async (_, args, c) => (await deleteOnlineEval(projectCtx(c), { id: String(args.id) })).id,
  }),
}));
