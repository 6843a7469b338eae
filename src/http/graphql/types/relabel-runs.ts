import {
  acceptRelabelOutputs,
  cancelRelabelRun,
  createRelabelRun,
  CreateRelabelRunInput,
  type DecideResult,
  getRelabelRun,
  listRelabelOutputs,
  listRelabelRuns,
  type RelabelOutput,
  type RelabelRun,
  type RunVerdict,
  rejectRelabelOutputs,
} from "../../../domain/relabel-runs";
import { asInputOf } from "../../../core/verb-input";
import { builder, projectCtx } from "../builder";

const RunVerdictRef = builder.objectRef<RunVerdict>("RelabelVerdict").implement({
  fields: (t) => ({
    criterionId: t.exposeString("criterionId", { description: "The criterion and the version that judged (`<id>@v<N>`)" }),
    version: t.exposeInt("version"),
    judgement: t.exposeString("judgement", { nullable: true }),
    explanation: t.exposeString("explanation", { nullable: true }),
    error: t.exposeString("error", { nullable: true }),
  }),
});

const RelabelOutputRef = builder.objectRef<RelabelOutput>("RelabelOutput").implement({
  description: "One entry of a relabel run: its input, the current output and the proposed one, each with its verdicts",
  fields: (t) => ({
    entryId: t.exposeID("entryId"),
    input: t.field({ type: "JSON", resolve: (o) => o.input }),
    current: t.field({ type: "JSON", nullable: true, resolve: (o) => o.current }),
    proposed: t.field({ type: "JSON", nullable: true, resolve: (o) => o.proposed }),
    error: t.exposeString("error", { nullable: true, description: "Why no output was proposed" }),
    currentVerdicts: t.field({ type: [RunVerdictRef], resolve: (o) => o.currentVerdicts }),
    proposedVerdicts: t.field({ type: [RunVerdictRef], resolve: (o) => o.proposedVerdicts }),
    decision: t.exposeString("decision", { nullable: true, description: "ACCEPTED, REJECTED, or null while undecided" }),
    stale: t.exposeBoolean("stale", { description: "The entry changed after the run read it: accepting it is refused" }),
  }),
});

const RelabelOutputPageRef = builder.objectRef<{ outputs: RelabelOutput[]; endCursor: string | null; hasNextPage: boolean }>("RelabelOutputPage").implement({
  fields: (t) => ({
    outputs: t.field({ type: [RelabelOutputRef], resolve: (p) => p.outputs }),
    endCursor: t.exposeString("endCursor", { nullable: true }),
    hasNextPage: t.exposeBoolean("hasNextPage"),
  }),
});

const RelabelRunRef = builder.objectRef<RelabelRun>("RelabelRun").implement({
  description: "A named relabelling of a dataset's entries by one model, judged by criteria; outputs apply only when accepted",
  fields: (t) => ({
    id: t.exposeID("id"),
    datasetId: t.exposeID("datasetId"),
    name: t.exposeString("name"),
    model: t.exposeString("model"),
    criteria: t.exposeStringList("criteria", { description: "Each pinned to its version (`<id>@v<N>`)" }),
    monitorId: t.exposeString("monitorId", { nullable: true }),
    status: t.exposeString("status", { description: "QUEUED, RUNNING, DONE, ERROR or CANCELLED" }),
    progress: t.field({
      type: builder.objectRef<{ done: number; total: number }>("RelabelProgress").implement({
        fields: (p) => ({ done: p.exposeInt("done"), total: p.exposeInt("total") }),
      }),
      resolve: (r) => r.progress,
    }),
    accepted: t.int({ resolve: (r) => r.decisions.accepted }),
    rejected: t.int({ resolve: (r) => r.decisions.rejected }),
    undecided: t.int({ description: "Proposed outputs not accepted or rejected yet", resolve: (r) => r.decisions.undecided }),
    failed: t.int({ description: "Entries the model gave no output for", resolve: (r) => r.decisions.failed }),
    costUsd: t.exposeFloat("costUsd", { description: "The model's and the judges' calls (Hone's own, kind relabel)" }),
    errorMessage: t.exposeString("errorMessage", { nullable: true }),
    createdAt: t.field({ type: "DateTime", resolve: (r) => r.createdAt }),
    outputs: t.field({
      type: RelabelOutputPageRef,
      args: { decision: t.arg.string({ required: false }), first: t.arg.int({ required: false }), after: t.arg.string({ required: false }) },
      resolve: (r, args, c) => listRelabelOutputs(projectCtx(c), { id: r.id, decision: args.decision as never, first: args.first, after: args.after }),
    }),
  }),
});

const DecideResultRef = builder.objectRef<DecideResult>("RelabelDecision").implement({
  fields: (t) => ({
    accepted: t.exposeInt("accepted"),
    rejected: t.exposeInt("rejected"),
    stale: t.exposeInt("stale", { description: "Entries changed since the run read them: left as they are (and the proposal rejected)" }),
  }),
});

const CreateRelabelRunInputRef = builder.inputType("CreateRelabelRunInput", {
  fields: (t) => ({
    datasetId: t.id(),
    name: t.string({ required: false }),
    model: t.string({ description: "The model writing the new outputs (any gateway model string)" }),
    criterionIds: t.stringList({ required: false, description: "Criteria judging both the proposed and the current output" }),
    monitorId: t.id({ required: false, description: "Only the entries this monitor added" }),
    entryIds: t.idList({ required: false, description: "Only these entries" }),
  }),
});

builder.queryFields((t) => ({
  relabelRuns: t.field({
    type: [RelabelRunRef],
    description:
      "A page of the project's relabel runs (of one dataset), newest first: at most `first` (default and ceiling HONE_MAX_PAGE_SIZE), older than `after` (an id)",
    args: { datasetId: t.arg.id({ required: false }), first: t.arg.int({ required: false }), after: t.arg.string({ required: false }) },
    resolve: (_, args, c) =>
      listRelabelRuns(projectCtx(c), { datasetId: args.datasetId == null ? null : String(args.datasetId), first: args.first, after: args.after }),
  }),
  relabelRun: t.field({ type: RelabelRunRef, args: { id: t.arg.id() }, resolve: (_, args, c) => getRelabelRun(projectCtx(c), { id: String(args.id) }) }),
}));

builder.mutationFields((t) => ({
  createRelabelRun: t.field({
    type: RelabelRunRef,
    args: { input: t.arg({ type: CreateRelabelRunInputRef }) },
    resolve: (_, { input }, c) =>
      createRelabelRun(
        projectCtx(c),
        asInputOf(CreateRelabelRunInput, {
          ...input,
          datasetId: String(input.datasetId),
          monitorId: input.monitorId == null ? input.monitorId : String(input.monitorId),
          entryIds: input.entryIds?.map(String),
        }),
      ),
  }),
  acceptRelabelOutputs: t.field({
    type: DecideResultRef,
    description: "Replaces the entries' outputs by the run's (originals kept; the replaced outputs become rejected outputs)",
    args: { id: t.arg.id(), entryIds: t.arg.idList({ required: false, description: "Some entries; absent: every undecided one" }) },
    resolve: (_, args, c) => acceptRelabelOutputs(projectCtx(c), { id: String(args.id), entryIds: args.entryIds?.map(String) }),
  }),
  rejectRelabelOutputs: t.field({
    type: DecideResultRef,
    args: { id: t.arg.id(), entryIds: t.arg.idList({ required: false, description: "Some entries; absent: every undecided one" }) },
    resolve: (_, args, c) => rejectRelabelOutputs(projectCtx(c), { id: String(args.id), entryIds: args.entryIds?.map(String) }),
  }),
  cancelRelabelRun: t.field({
    type: RelabelRunRef,
    args: { id: t.arg.id() },
    resolve: (_, args, c) => cancelRelabelRun(projectCtx(c), { id: String(args.id) }),
  }),
}));
