import {
  createRoute,
  CreateRouteInput,
  deleteRoute,
  getRoute,
  listRoutes,
  rollbackRoute,
  type Route,
  type RouteConfig,
  type RouteSeries,
  type RouteVersionStats,
  updateRoute,
  UpdateRouteInput,
} from "../../../domain/routing";
import { asInputOf } from "../../../core/verb-input";

type SchemaTypesOf<B> = B extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;
import { builder, projectCtx } from "../builder";
import { loadersOf } from "../loaders";

type Target = RouteConfig["groups"][number]["targets"][number];
type Group = RouteConfig["groups"][number];

const RouteTargetRef = builder.objectRef<Target>("RouteTarget").implement({
  description: "A model a route's group may send a call to",
  fields: (t) => ({
    model: t.exposeString("model", { description: "Any model string Hone accepts (a provider model, a custom provider's, a fine-tune)" }),
    weight: t.exposeInt("weight", { description: "Percent of the group's calls" }),
    timeoutMs: t.int({ nullable: true, description: "Longest wait for its answer (a stream's first byte)", resolve: (x) => x.timeoutMs ?? null }),
    version: t.string({ nullable: true, description: "The rollout version it serves", resolve: (x) => x.version ?? null }),
  }),
});

const RouteGroupRef = builder.objectRef<Group>("RouteGroup").implement({
  description: "Targets tried before the next group's: a call falls back to the next group only when every target here failed",
  fields: (t) => ({
    balance: t.exposeString("balance", { description: "weighted (a draw by weight) or least-busy (fewest calls in flight per weight)" }),
    targets: t.field({ type: [RouteTargetRef], resolve: (g) => g.targets }),
  }),
});

const RouteJudgeRef = builder.objectRef<NonNullable<RouteConfig["judge"]>>("RouteJudge").implement({
  description: "A sample of the route's answers judged by criteria, off the answer's path: each version's pass rate",
  fields: (t) => ({
    criteria: t.exposeStringList("criteria", { description: "Criterion ids (optionally @vN)" }),
    sampleRate: t.exposeFloat("sampleRate", { description: "The share of answers judged, 0 to 1" }),
    alertBelow: t.float({ nullable: true, description: "The pass rate (last hour) below which the webhook is alerted", resolve: (j) => j.alertBelow ?? null }),
    alertMinJudged: t.int({ nullable: true, description: "Judged answers in that hour before an alert", resolve: (j) => j.alertMinJudged ?? null }),
  }),
});

const RouteConfigRef = builder.objectRef<RouteConfig>("RouteConfig").implement({
  description: "A route's configuration",
  fields: (t) => ({
    groups: t.field({ type: [RouteGroupRef], resolve: (c) => c.groups }),
    attempts: t.int({ nullable: true, description: "Attempts per target (null: HONE_RETRY_ATTEMPTS)", resolve: (c) => c.attempts ?? null }),
    stickyTag: t.string({ nullable: true, description: "Calls with the same value of this tag keep the same target", resolve: (c) => c.stickyTag ?? null }),
    judge: t.field({ type: RouteJudgeRef, nullable: true, resolve: (c) => c.judge ?? null }),
  }),
});

const RouteVersionStatsRef = builder.objectRef<RouteVersionStats>("RouteVersionStats").implement({
  description: "One rollout version's figures over a window, from the logs of the route's calls",
  fields: (t) => ({
    version: t.exposeString("version", { nullable: true }),
    requests: t.exposeInt("requests"),
    errors: t.exposeInt("errors", { description: "Calls that ended with a status of 400 or more, or none" }),
    errorRate: t.exposeFloat("errorRate"),
    latencyP50Ms: t.exposeInt("latencyP50Ms", { nullable: true }),
    latencyP95Ms: t.exposeInt("latencyP95Ms", { nullable: true }),
    costUsd: t.exposeFloat("costUsd", { nullable: true, description: "The priced calls' cost; null when none had a price (unknown, not $0)" }),
    unpricedCalls: t.exposeInt("unpricedCalls", { description: "Answered calls whose model has no price: not in costUsd" }),
    judged: t.exposeInt("judged", { description: "Answers of the judged sample (the route's judge) with a verdict" }),
    passRate: t.exposeFloat("passRate", { nullable: true, description: "The share of them that passed every criterion (null: none judged)" }),
  }),
});

const RouteSeriesPointRef = builder.objectRef<RouteSeries["points"][number]>("RouteSeriesPoint").implement({
  description: "One rollout version's figures over one time bucket",
  fields: (t) => ({
    start: t.field({ type: "DateTime", description: "The bucket's start", resolve: (p) => p.start }),
    version: t.exposeString("version", { nullable: true }),
    requests: t.exposeInt("requests"),
    errors: t.exposeInt("errors"),
    errorRate: t.exposeFloat("errorRate"),
    latencyP50Ms: t.exposeInt("latencyP50Ms", { nullable: true }),
    latencyP95Ms: t.exposeInt("latencyP95Ms", { nullable: true }),
    costUsd: t.exposeFloat("costUsd", { nullable: true, description: "The priced calls' cost; null when none had a price (unknown, not $0)" }),
    unpricedCalls: t.exposeInt("unpricedCalls", { description: "Answered calls whose model has no price: not in costUsd" }),
    judged: t.exposeInt("judged", { description: "Verdicts of the judged sample made in this bucket" }),
    passRate: t.exposeFloat("passRate", { nullable: true }),
  }),
});

const RouteSeriesRef = builder.objectRef<RouteSeries>("RouteSeries").implement({
  description: "A route's figures per version and time bucket: how a rollout's pass rate, errors and latency move",
  fields: (t) => ({
    from: t.field({ type: "DateTime", resolve: (x) => x.from }),
    to: t.field({ type: "DateTime", resolve: (x) => x.to }),
    bucketMs: t.exposeInt("bucketMs", { description: "Each bucket's length: 1 minute to 1 day, at most 60 buckets" }),
    points: t.field({ type: [RouteSeriesPointRef], description: "By bucket, then version; empty buckets left out", resolve: (x) => x.points }),
  }),
});

const RouteRef = builder.objectRef<Route>("Route").implement({
  description: "A named route, called as hone:<slug>: fallback groups of weighted targets, with retries and circuits",
  fields: (t) => ({
    id: t.exposeID("id"),
    slug: t.exposeString("slug"),
    groups: t.field({ type: [RouteGroupRef], resolve: (r) => r.groups }),
    attempts: t.int({ nullable: true, resolve: (r) => r.attempts ?? null }),
    stickyTag: t.string({ nullable: true, resolve: (r) => r.stickyTag ?? null }),
    judge: t.field({ type: RouteJudgeRef, nullable: true, resolve: (r) => r.judge ?? null }),
    revision: t.exposeInt("revision", { description: "Counts the changes made to it" }),
    previous: t.field({
      type: RouteConfigRef,
      nullable: true,
      description: "What the last change replaced: rollbackRoute restores it",
      resolve: (r) => r.previous,
    }),
    createdAt: t.field({ type: "DateTime", resolve: (r) => r.createdAt }),
    updatedAt: t.field({ type: "DateTime", resolve: (r) => r.updatedAt }),
    stats: t.field({
      type: [RouteVersionStatsRef],
      description: "Each version's requests, errors, latency and cost over a window (default: the last 24 hours)",
      args: { from: t.arg({ type: "DateTime", required: false }), to: t.arg({ type: "DateTime", required: false }) },
      // One pair of queries for every route listed with the same window (the route itself is already read).
      resolve: (r, args, c) => loadersOf(c).routeStats({ from: args.from, to: args.to }).load(r.slug),
    }),
    series: t.field({
      type: RouteSeriesRef,
      description: "The same figures per time bucket (at most 60 over the window; default: the last 24 hours)",
      args: { from: t.arg({ type: "DateTime", required: false }), to: t.arg({ type: "DateTime", required: false }) },
      resolve: async (r, args, c) => (await loadersOf(c).routeSeries({ from: args.from, to: args.to }).load(r.slug))!,
    }),
  }),
});

const RouteTargetInputRef = builder.inputType("RouteTargetInput", {
  fields: (t) => ({
    model: t.string(),
    weight: t.int({ description: "Percent of the group's calls (a group's weights sum to 100)" }),
    timeoutMs: t.int({ required: false }),
    version: t.string({ required: false }),
  }),
});

const RouteJudgeInputRef = builder.inputType("RouteJudgeInput", {
  fields: (t) => ({
    criteria: t.stringList({ description: "Criterion ids (optionally @vN), at most 3" }),
    sampleRate: t.float({ description: "The share of answers judged, 0 to 1" }),
    alertBelow: t.float({ required: false, description: "Alert the project's webhook when the last hour's pass rate falls below this share" }),
    alertMinJudged: t.int({ required: false, description: "Judged answers in that hour before an alert is raised (default 20)" }),
  }),
});

const RouteGroupInputRef = builder.inputType("RouteGroupInput", {
  fields: (t) => ({
    targets: t.field({ type: [RouteTargetInputRef] }),
    balance: t.string({ required: false, description: "weighted (default) or least-busy" }),
  }),
});

/** A route's fields, the same on create and update (update replaces the whole configuration). */
const routeInputFields = (t: PothosSchemaTypes.InputFieldBuilder<SchemaTypesOf<typeof builder>, "InputObject">) => ({
  slug: t.string(),
  groups: t.field({ type: [RouteGroupInputRef] }),
  attempts: t.int({ required: false }),
  stickyTag: t.string({ required: false }),
  judge: t.field({ type: RouteJudgeInputRef, required: false }),
});

const CreateRouteInputRef = builder.inputType("CreateRouteInput", { fields: routeInputFields });

const UpdateRouteInputRef = builder.inputType("UpdateRouteInput", {
  description: "The route's whole new configuration (what it had is kept for rollbackRoute)",
  fields: routeInputFields,
});

builder.queryFields((t) => ({
  routes: t.field({
    type: [RouteRef],
    description:
      "A page of the project's routes (at most 100 in all), by slug: at most `first` (default and ceiling HONE_MAX_PAGE_SIZE), after `after` (an id)",
    args: { first: t.arg.int({ required: false }), after: t.arg.string({ required: false }) },
    resolve: (_, a, c) => listRoutes(projectCtx(c), { first: a.first, after: a.after }),
  }),
  route: t.field({ type: RouteRef, args: { slug: t.arg.string() }, resolve: (_, args, c) => getRoute(projectCtx(c), { slug: args.slug }) }),
}));

builder.mutationFields((t) => ({
  createRoute: t.field({
    extensions: { role: "admin" },
    type: RouteRef,
    args: { input: t.arg({ type: CreateRouteInputRef }) },
    resolve: (_, args, c) => createRoute(projectCtx(c), asInputOf(CreateRouteInput, args.input)),
  }),
  updateRoute: t.field({
    extensions: { role: "admin" },
    type: RouteRef,
    args: { input: t.arg({ type: UpdateRouteInputRef }) },
    resolve: (_, args, c) => updateRoute(projectCtx(c), asInputOf(UpdateRouteInput, args.input)),
  }),
  rollbackRoute: t.field({
    extensions: { role: "admin" },
    type: RouteRef,
    description: "Puts back the configuration the last change replaced",
    args: { slug: t.arg.string() },
    resolve: (_, args, c) => rollbackRoute(projectCtx(c), { slug: args.slug }),
  }),
  deleteRoute: t.field({
    extensions: { role: "admin" },
    type: "String",
    description: "Deletes a route; returns its slug",
    args: { slug: t.arg.string() },
    resolve: async (_, args, c) => (await deleteRoute(projectCtx(c), { slug: args.slug })).slug,
  }),
}));
