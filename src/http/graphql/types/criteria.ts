import {
  createCriterion,
  createCriterionVersion,
  deleteCriterion,
  getCriterion,
  importAlignmentSet,
  labelAlignmentRow,
  listCriteria,
  runAlignment,
  startAlignmentRun,
  getAlignmentTask,
  type AlignmentTask,
  type AlignmentRow,
  type AlignmentStats,
  type Criterion,
  type CriterionVersion,
} from "../../../domain/criteria";
import { builder, projectCtx } from "../builder";
import { loadersOf } from "../loaders";

const CriterionVersionRef = builder.objectRef<CriterionVersion>("CriterionVersion").implement({
  fields: (t) => ({
    version: t.exposeInt("version"),
    judgeModel: t.exposeString("judgeModel"),
    prompt: t.exposeString("prompt"),
    createdAt: t.field({ type: "DateTime", resolve: (v) => v.createdAt }),
  }),
});

const CriterionRef = builder.objectRef<Criterion>("Criterion").implement({
  description: "An LLM judge (model + prompt) giving PASS or FAIL; refer to it as <id> (latest) or <id>@v<N>",
  fields: (t) => ({
    id: t.exposeID("id"),
    name: t.exposeString("name"),
    latestVersion: t.exposeInt("latestVersion"),
    createdAt: t.field({ type: "DateTime", resolve: (c) => c.createdAt }),
    versions: t.field({ type: [CriterionVersionRef], resolve: (c) => c.versions }),
    alignmentRows: t.field({
      type: [AlignmentRowRef],
      description: "A page of its alignment set, oldest first: at most `first` (default and ceiling HONE_MAX_PAGE_SIZE), after the row `after`",
      args: { first: t.arg.int({ required: false }), after: t.arg.string({ required: false }) },
      // One query for the rows of every criterion listed with the same page arguments.
      resolve: (c, a, ctx) =>
        loadersOf(ctx)
          .alignmentRowPages({ first: a.first ?? null, after: a.after ?? null })
          .load(c.id),
    }),
    alignmentRuns: t.field({
      type: [AlignmentStatsRef],
      description: "The statistics of the last run of each version",
      resolve: (c, _, ctx) => loadersOf(ctx).alignmentRunsByCriterion.load(c.id),
    }),
  }),
});

const AlignmentRowRef = builder.objectRef<AlignmentRow>("AlignmentRow").implement({
  fields: (t) => ({
    id: t.exposeID("id"),
    messages: t.field({ type: "JSON", resolve: (r) => r.messages }),
    tools: t.field({ type: "JSON", nullable: true, resolve: (r) => r.tools }),
    toolChoice: t.field({ type: "JSON", nullable: true, resolve: (r) => r.toolChoice }),
    output: t.field({ type: "JSON", resolve: (r) => r.output }),
    judgement: t.exposeString("judgement", { nullable: true, description: "The human label: PASS, FAIL or null" }),
  }),
});

const AlignmentStatsRef = builder.objectRef<AlignmentStats>("AlignmentStats").implement({
  description: "Judge against human labels, FAIL being the positive class",
  fields: (t) => ({
    version: t.exposeInt("version"),
    rows: t.exposeInt("rows"),
    precision: t.exposeFloat("precision", { nullable: true }),
    recall: t.exposeFloat("recall", { nullable: true }),
    f1: t.exposeFloat("f1", { nullable: true }),
    truePositives: t.exposeInt("truePositives"),
    falsePositives: t.exposeInt("falsePositives"),
    falseNegatives: t.exposeInt("falseNegatives"),
    trueNegatives: t.exposeInt("trueNegatives"),
    judgeErrors: t.exposeInt("judgeErrors"),
    warning: t.exposeString("warning", { nullable: true }),
  }),
});

const AlignmentTaskRef = builder.objectRef<AlignmentTask>("AlignmentTask").implement({
  description: "An alignment run in the background; stats are set once it is DONE",
  fields: (t) => ({
    id: t.exposeID("id"),
    criterionId: t.exposeID("criterionId"),
    version: t.exposeInt("version"),
    status: t.exposeString("status", { description: "QUEUED, RUNNING, DONE or ERROR" }),
    done: t.int({ resolve: (r) => r.progress.done }),
    total: t.int({ resolve: (r) => r.progress.total }),
    stats: t.field({ type: AlignmentStatsRef, nullable: true, resolve: (r) => r.stats }),
    errorMessage: t.exposeString("errorMessage", { nullable: true }),
  }),
});

const ImportError = builder.objectRef<{ line: number; message: string }>("ImportLineError").implement({
  fields: (t) => ({ line: t.exposeInt("line"), message: t.exposeString("message") }),
});
const ImportResult = builder.objectRef<{ rowsImported: number; errors: { line: number; message: string }[] }>("ImportAlignmentSetResult").implement({
  fields: (t) => ({ rowsImported: t.exposeInt("rowsImported"), errors: t.field({ type: [ImportError], resolve: (r) => r.errors }) }),
});

const CreateCriterionInputRef = builder.inputType("CreateCriterionInput", {
  fields: (t) => ({
    name: t.string(),
    judgeModel: t.string(),
    prompt: t.string({ description: "Must use {{output}}; may use {{messages}}, {{tools}}, {{tool_choice}}" }),
  }),
});
const CreateCriterionVersionInputRef = builder.inputType("CreateCriterionVersionInput", {
  fields: (t) => ({ criterionId: t.id(), judgeModel: t.string({ required: false }), prompt: t.string({ required: false }) }),
});
const ImportAlignmentSetInputRef = builder.inputType("ImportAlignmentSetInput", {
  fields: (t) => ({ criterionId: t.id(), jsonl: t.string() }),
});
const RunAlignmentInputRef = builder.inputType("RunAlignmentInput", {
  fields: (t) => ({ criterionId: t.id(), version: t.int({ required: false }) }),
});

builder.queryFields((t) => ({
  criteria: t.field({
    type: [CriterionRef],
    description: "A page of the project's criteria, newest first: at most `first` (default and ceiling HONE_MAX_PAGE_SIZE), older than `after` (an id)",
    args: { first: t.arg.int({ required: false }), after: t.arg.string({ required: false }) },
    resolve: (_, a, c) => listCriteria(projectCtx(c), { first: a.first, after: a.after }),
  }),
  criterion: t.field({ type: CriterionRef, args: { id: t.arg.id() }, resolve: (_, a, c) => getCriterion(projectCtx(c), { criterionId: String(a.id) }) }),
  alignmentTask: t.field({ type: AlignmentTaskRef, args: { id: t.arg.id() }, resolve: (_, a, c) => getAlignmentTask(projectCtx(c), { id: String(a.id) }) }),
}));

builder.mutationFields((t) => ({
  createCriterion: t.field({
    type: CriterionRef,
    args: { input: t.arg({ type: CreateCriterionInputRef }) },
    resolve: (_, a, c) => createCriterion(projectCtx(c), a.input),
  }),
  createCriterionVersion: t.field({
    type: CriterionVersionRef,
    args: { input: t.arg({ type: CreateCriterionVersionInputRef }) },
    resolve: (_, a, c) => createCriterionVersion(projectCtx(c), { ...a.input, criterionId: String(a.input.criterionId) }),
  }),
  deleteCriterion: t.field({
    type: "ID",
    args: { id: t.arg.id() },
    resolve: async (_, a, c) => (await deleteCriterion(projectCtx(c), { criterionId: String(a.id) })).id,
  }),
  importAlignmentSet: t.field({
    type: ImportResult,
    args: { input: t.arg({ type: ImportAlignmentSetInputRef }) },
    resolve: (_, a, c) => importAlignmentSet(projectCtx(c), { criterionId: String(a.input.criterionId), jsonl: a.input.jsonl }),
  }),
  labelAlignmentRow: t.field({
    type: AlignmentRowRef,
    args: { rowId: t.arg.id(), judgement: t.arg.string({ required: false, description: "PASS, FAIL, or null to clear" }) },
    resolve: (_, a, c) => labelAlignmentRow(projectCtx(c), { rowId: String(a.rowId), judgement: (a.judgement ?? null) as "PASS" | "FAIL" | null }),
  }),
  runAlignment: t.field({
    type: AlignmentStatsRef,
    args: { input: t.arg({ type: RunAlignmentInputRef }) },
    resolve: (_, a, c) => runAlignment(projectCtx(c), { criterionId: String(a.input.criterionId), version: a.input.version }),
  }),
  startAlignmentRun: t.field({
    type: AlignmentTaskRef,
    description: "runAlignment in the background: follow it with alignmentTask(id)",
    args: { input: t.arg({ type: RunAlignmentInputRef }) },
    resolve: (_, a, c) => startAlignmentRun(projectCtx(c), { criterionId: String(a.input.criterionId), version: a.input.version }),
  }),
}));
