import { getDatasetTask, judgeDatasetEntries, relabelDatasetEntries, type DatasetTask } from "../../../domain/datasets";
import {
  cancelEvaluation,
  createEvaluation,
  getEvaluation,
  headToHead,
  listEvaluations,
  type Evaluation,
  type EvaluationResult,
  type EvaluationSummaryRow,
  type HeadToHead,
} from "../../../domain/evaluations";
import { builder, projectCtx } from "../builder";
import { loadersOf } from "../loaders";

const Progress = builder.objectRef<{ done: number; total: number }>("Progress").implement({
  fields: (t) => ({ done: t.exposeInt("done"), total: t.exposeInt("total") }),
});

const PinnedCriterion = builder.objectRef<{ criterionId: string; version: number }>("PinnedCriterion").implement({
  fields: (t) => ({ criterionId: t.exposeID("criterionId"), version: t.exposeInt("version") }),
});

const SummaryRow = builder.objectRef<EvaluationSummaryRow>("EvaluationSummary").implement({
  fields: (t) => ({
    model: t.exposeString("model"),
    criterionId: t.exposeID("criterionId"),
    passRate: t.exposeFloat("passRate", { nullable: true }),
    meanScore: t.exposeFloat("meanScore", { nullable: true }),
    judged: t.exposeInt("judged"),
    judgeErrors: t.exposeInt("judgeErrors"),
    outputErrors: t.exposeInt("outputErrors"),
    inputTokens: t.exposeInt("inputTokens"),
    outputTokens: t.exposeInt("outputTokens"),
    costUsd: t.exposeFloat("costUsd", { nullable: true, description: "The priced answers' cost; null when none had a price (unknown, not $0)" }),
    unpricedCalls: t.exposeInt("unpricedCalls", { description: "Answers whose model has no price: not in costUsd" }),
    meanLatencyMs: t.exposeFloat("meanLatencyMs", { nullable: true }),
  }),
});

const ResultRef = builder.objectRef<EvaluationResult>("EvaluationResult").implement({
  fields: (t) => ({
    entryId: t.exposeID("entryId"),
    model: t.exposeString("model"),
    output: t.field({ type: "JSON", nullable: true, resolve: (r) => r.output }),
    error: t.exposeString("error", { nullable: true }),
    inputTokens: t.exposeInt("inputTokens", { nullable: true }),
    outputTokens: t.exposeInt("outputTokens", { nullable: true }),
    costUsd: t.exposeFloat("costUsd", { nullable: true }),
    latencyMs: t.exposeInt("latencyMs", { nullable: true }),
    verdicts: t.field({ type: "JSON", description: "criterion id -> {status, score, explanation} or {status: error, ...}", resolve: (r) => r.verdicts }),
  }),
});

const HeadToHeadEntry = builder.objectRef<HeadToHead["entries"][number]>("HeadToHeadEntry").implement({
  fields: (t) => ({
    entryId: t.exposeID("entryId"),
    scoreA: t.exposeFloat("scoreA"),
    scoreB: t.exposeFloat("scoreB"),
    a: t.field({ type: ResultRef, resolve: (e) => e.a }),
    b: t.field({ type: ResultRef, resolve: (e) => e.b }),
  }),
});

const HeadToHeadRef = builder.objectRef<HeadToHead>("HeadToHead").implement({
  fields: (t) => ({
    modelA: t.exposeString("modelA"),
    modelB: t.exposeString("modelB"),
    aWins: t.exposeInt("aWins"),
    bWins: t.exposeInt("bWins"),
    ties: t.exposeInt("ties"),
    entries: t.field({ type: [HeadToHeadEntry], resolve: (h) => h.entries }),
  }),
});

const EvaluationRef = builder.objectRef<Evaluation>("Evaluation").implement({
  fields: (t) => ({
    id: t.exposeID("id"),
    name: t.exposeString("name"),
    datasetId: t.exposeID("datasetId", { nullable: true }),
    models: t.exposeStringList("models"),
    criteria: t.field({ type: [PinnedCriterion], resolve: (e) => e.criteria }),
    status: t.exposeString("status", { description: "QUEUED, RUNNING, DONE, CANCELLED or ERROR" }),
    progress: t.field({ type: Progress, resolve: (e) => e.progress }),
    errorMessage: t.exposeString("errorMessage", { nullable: true }),
    createdAt: t.field({ type: "DateTime", resolve: (e) => e.createdAt }),
    summary: t.field({ type: [SummaryRow], resolve: (e, _, c) => loadersOf(c).evaluationSummaries.load(e.id) }),
    results: t.field({
      type: [ResultRef],
      description:
        "A page of its results by entry then model: at most `first` (default and ceiling HONE_MAX_PAGE_SIZE), after the cursor `<entryId>/<model>` of the last one",
      args: { model: t.arg.string({ required: false }), first: t.arg.int({ required: false }), after: t.arg.string({ required: false }) },
      resolve: (e, a, c) =>
        loadersOf(c)
          .evaluationResultPages({ model: a.model ?? null, first: a.first ?? null, after: a.after ?? null })
          .load(e.id),
    }),
    headToHead: t.field({
      type: HeadToHeadRef,
      args: { modelA: t.arg.string(), modelB: t.arg.string() },
      resolve: (e, a, c) => headToHead(projectCtx(c), { id: e.id, modelA: a.modelA, modelB: a.modelB }),
    }),
  }),
});

const DatasetTaskRef = builder.objectRef<DatasetTask>("DatasetTask").implement({
  description: "A background judge or relabel run over a dataset's entries",
  fields: (t) => ({
    id: t.exposeID("id"),
    datasetId: t.exposeID("datasetId"),
    kind: t.exposeString("kind"),
    criterionId: t.exposeID("criterionId"),
    criterionVersion: t.exposeInt("criterionVersion"),
    model: t.exposeString("model", { nullable: true }),
    status: t.exposeString("status"),
    progress: t.field({ type: Progress, resolve: (x) => x.progress }),
    errorMessage: t.exposeString("errorMessage", { nullable: true }),
  }),
});

const CreateEvaluationInputRef = builder.inputType("CreateEvaluationInput", {
  fields: (t) => ({
    name: t.string({ required: false, description: "a name to find it by; default: its models on its dataset" }),
    datasetId: t.id(),
    models: t.stringList({ description: "gateway model strings, or `dataset` for the reference outputs" }),
    criterionIds: t.stringList(),
  }),
});
const QualityInput = builder.inputType("JudgeDatasetEntriesInput", { fields: (t) => ({ datasetId: t.id(), criterionId: t.string() }) });
const RelabelInput = builder.inputType("RelabelDatasetEntriesInput", { fields: (t) => ({ datasetId: t.id(), criterionId: t.string(), model: t.string() }) });

builder.queryFields((t) => ({
  evaluation: t.field({ type: EvaluationRef, args: { id: t.arg.id() }, resolve: (_, a, c) => getEvaluation(projectCtx(c), { id: String(a.id) }) }),
  evaluations: t.field({
    type: [EvaluationRef],
    description: "A page of the project's evaluations, newest first: at most `first` (default and ceiling HONE_MAX_PAGE_SIZE), older than `after` (an id)",
    args: { first: t.arg.int({ required: false }), after: t.arg.string({ required: false }) },
    resolve: (_, a, c) => listEvaluations(projectCtx(c), { first: a.first, after: a.after }),
  }),
  datasetTask: t.field({ type: DatasetTaskRef, args: { id: t.arg.id() }, resolve: (_, a, c) => getDatasetTask(projectCtx(c), { id: String(a.id) }) }),
}));

builder.mutationFields((t) => ({
  createEvaluation: t.field({
    type: EvaluationRef,
    args: { input: t.arg({ type: CreateEvaluationInputRef }) },
    resolve: (_, a, c) => createEvaluation(projectCtx(c), { ...a.input, datasetId: String(a.input.datasetId) }),
  }),
  cancelEvaluation: t.field({ type: EvaluationRef, args: { id: t.arg.id() }, resolve: (_, a, c) => cancelEvaluation(projectCtx(c), { id: String(a.id) }) }),
  judgeDatasetEntries: t.field({
    type: DatasetTaskRef,
    description:
      "Judges every entry of the dataset with the criterion (its latest version, or `<id>@v<N>`), in the background; read the results in DatasetEntry.verdicts",
    args: { input: t.arg({ type: QualityInput }) },
    resolve: (_, a, c) => judgeDatasetEntries(projectCtx(c), { datasetId: String(a.input.datasetId), criterionId: a.input.criterionId }),
  }),
  relabelDatasetEntries: t.field({
    type: DatasetTaskRef,
    description:
      "One call does the whole job, in the background: judges the entries that have no verdict of the criterion yet, " +
      "relabels with `model` every entry whose latest verdict is FAIL (the original messages are kept in originalMessages), " +
      "then judges each relabelled entry again; read the results in DatasetEntry.verdicts",
    args: { input: t.arg({ type: RelabelInput }) },
    resolve: (_, a, c) =>
      relabelDatasetEntries(projectCtx(c), { datasetId: String(a.input.datasetId), criterionId: a.input.criterionId, model: a.input.model }),
  }),
}));
