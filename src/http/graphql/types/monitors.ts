import {
  backfillMonitor,
  BackfillMonitorInput,
  createMonitor,
  CreateMonitorInput,
  deleteMonitor,
  getMonitor,
  listMonitors,
  type Monitor,
  updateMonitor,
  UpdateMonitorInput,
} from "../../../domain/monitors";
import { asInputOf } from "../../../core/verb-input";
import { domainLogFilter, wireLogFilter } from "../../log-filter-wire";
import { builder, projectCtx } from "../builder";
import { LogFilterInput } from "./logs";

const MonitorCountsRef = builder.objectRef<Monitor["counts"]>("MonitorCounts").implement({
  description: "What a monitor did with the calls offered to it. The sample is taken first (by each call's id), then the filter, then the judge",
  fields: (t) => ({
    seen: t.exposeInt("seen", { description: "The application's answered calls stored while it was active, before its sample" }),
    sampled: t.exposeInt("sampled", { description: "Calls in its sample that it examined" }),
    matched: t.exposeInt("matched", { description: "Of those, the calls its log filter matched" }),
    judged: t.exposeInt("judged", { description: "Matched calls its criterion judged" }),
    rejected: t.exposeInt("rejected", { description: "Judged calls the verdict did not keep" }),
    added: t.exposeInt("added", { description: "Calls added to the dataset as entries" }),
    duplicates: t.exposeInt("duplicates", { description: "Kept calls whose content the dataset already held" }),
    invalid: t.exposeInt("invalid", { description: "Kept calls that could not become an entry, or that no judge could judge (after 3 tries)" }),
    waiting: t.exposeInt("waiting", { description: "Calls offered and not examined yet" }),
  }),
});

const MonitorRef = builder.objectRef<Monitor>("Monitor").implement({
  description: "A saved log filter, an optional LLM filter and a sample rate: the matching production calls become entries of a dataset as they come",
  fields: (t) => ({
    id: t.exposeID("id"),
    name: t.exposeString("name"),
    filter: t.field({
      type: "JSON",
      description: "The log filter, as LogFilterInput spells it",
      resolve: (m) => wireLogFilter(m.filter as Record<string, unknown>),
    }),
    criterionId: t.exposeString("criterionId", { nullable: true, description: "The criterion judging each matched call (`<id>` or `<id>@v<N>`)" }),
    keepOn: t.exposeString("keepOn", { description: "PASS (collect good calls) or FAIL (collect failures)" }),
    sampleRate: t.exposeFloat("sampleRate"),
    datasetId: t.exposeID("datasetId"),
    testFraction: t.exposeFloat("testFraction", { description: "The share of added entries put in the TEST split" }),
    status: t.exposeString("status", { description: "ACTIVE or PAUSED" }),
    lastError: t.exposeString("lastError", { nullable: true, description: "Why it paused itself" }),
    counts: t.field({ type: MonitorCountsRef, resolve: (m) => m.counts }),
    judgeCostUsd: t.exposeFloat("judgeCostUsd", { description: "What its judge calls cost (internal calls, kind monitor)" }),
    createdAt: t.field({ type: "DateTime", resolve: (m) => m.createdAt }),
    updatedAt: t.field({ type: "DateTime", resolve: (m) => m.updatedAt }),
  }),
});

const CreateMonitorInputRef = builder.inputType("CreateMonitorInput", {
  fields: (t) => ({
    name: t.string(),
    datasetId: t.id(),
    filter: t.field({ type: LogFilterInput, required: false, description: "Which calls (absent: every answered call of the application)" }),
    criterionId: t.string({ required: false, description: "An LLM filter: this criterion judges each matched call" }),
    keepOn: t.string({ required: false, description: "PASS (default) or FAIL: the verdict that keeps a call" }),
    sampleRate: t.float({ required: false, description: "The share of calls examined, above 0 and at most 1 (default 1)" }),
    testFraction: t.float({ required: false, description: "The share of added entries put in TEST (default 0.2)" }),
    paused: t.boolean({ required: false }),
  }),
});

const UpdateMonitorInputRef = builder.inputType("UpdateMonitorInput", {
  fields: (t) => ({
    id: t.id(),
    name: t.string({ required: false }),
    filter: t.field({ type: LogFilterInput, required: false }),
    criterionId: t.string({ required: false, description: "A criterion, or null to stop judging (absent: unchanged)" }),
    keepOn: t.string({ required: false }),
    sampleRate: t.float({ required: false }),
    testFraction: t.float({ required: false }),
    status: t.string({ required: false, description: "ACTIVE (resume) or PAUSED" }),
  }),
});

const BackfillResultRef = builder.objectRef<{ offered: number; capped: boolean }>("MonitorBackfill").implement({
  fields: (t) => ({
    offered: t.exposeInt("offered", { description: "Calls of the range newly offered to the monitor (those it already examined are not)" }),
    capped: t.exposeBoolean("capped", { description: "The range held more than 100,000 matching calls: backfill the rest from the last one" }),
  }),
});

builder.queryFields((t) => ({
  monitors: t.field({
    type: [MonitorRef],
    description: "A page of the project's monitors, oldest first: at most `first` (default and ceiling HONE_MAX_PAGE_SIZE), after `after` (an id)",
    args: { first: t.arg.int({ required: false }), after: t.arg.string({ required: false }) },
    resolve: (_, a, c) => listMonitors(projectCtx(c), { first: a.first, after: a.after }),
  }),
  monitor: t.field({ type: MonitorRef, args: { id: t.arg.id() }, resolve: (_, args, c) => getMonitor(projectCtx(c), { id: String(args.id) }) }),
}));

builder.mutationFields((t) => ({
  createMonitor: t.field({
    type: MonitorRef,
    args: { input: t.arg({ type: CreateMonitorInputRef }) },
    resolve: (_, { input }, c) =>
      createMonitor(projectCtx(c), asInputOf(CreateMonitorInput, { ...input, datasetId: String(input.datasetId), filter: domainLogFilter(input.filter) })),
  }),
  updateMonitor: t.field({
    type: MonitorRef,
    args: { input: t.arg({ type: UpdateMonitorInputRef }) },
    resolve: (_, { input }, c) =>
      updateMonitor(projectCtx(c), asInputOf(UpdateMonitorInput, { ...input, id: String(input.id), filter: domainLogFilter(input.filter) })),
  }),
  deleteMonitor: t.field({
    type: "String",
    description: "Deletes a monitor; the entries it added stay. Returns its id",
    args: { id: t.arg.id() },
    resolve: async (_, args, c) => (await deleteMonitor(projectCtx(c), { id: String(args.id) })).id,
  }),
  backfillMonitor: t.field({
    type: BackfillResultRef,
    description: "Offers the monitor the calls of a time range, as if it had been running then",
    args: { id: t.arg.id(), from: t.arg.string(), to: t.arg.string({ required: false }) },
    resolve: (_, args, c) => backfillMonitor(projectCtx(c), asInputOf(BackfillMonitorInput, { ...args, id: String(args.id) })),
  }),
}));
