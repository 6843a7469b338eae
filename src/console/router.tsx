import { createRootRoute, createRoute, createRouter, lazyRouteComponent, redirect } from "@tanstack/react-router";
import { AppLayout } from "./layout";
import { useSession } from "./lib/session";
import { NotFoundPage } from "./pages/not-found";
import { parseCriterionSearch } from "./pages/criteria/search";
import { parseEntriesSearch } from "./pages/datasets/search";
import { parseEvaluationSearch, parseEvaluationsSearch } from "./pages/evaluations/search";
import { parseLogsSearch } from "./pages/logs/search";
import { parseModelsSearch } from "./pages/models/search";
import { parsePlaygroundSearch } from "./pages/playground/search";
import { parseSettingsSearch } from "./pages/settings/settings-search";
import { parseTracesSearch } from "./pages/traces/search";
import { parseUsageSearch } from "./pages/usage/usage-search";

// Each section's page is its own chunk, loaded when first opened; the shell loads alone.
const rootRoute = createRootRoute({ component: () => <AppLayout session={useSession()} /> });

const indexRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/",
  beforeLoad: () => {
    throw redirect({ to: "/logs" });
  },
});

const logsRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/logs",
  // The filter bar's state lives in the URL so a view can be shared as a link.
  validateSearch: parseLogsSearch,
  component: lazyRouteComponent(() => import("./pages/logs/logs-page"), "LogsPage"),
});

// One log, in a drawer over the list (the list keeps its scroll, selection and filters).
const logDetailRoute = createRoute({
  getParentRoute: () => logsRoute,
  path: "$logId",
  component: lazyRouteComponent(() => import("./pages/logs/log-detail"), "LogDetail"),
});

const tracesRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/traces",
  validateSearch: parseTracesSearch,
  component: lazyRouteComponent(() => import("./pages/traces/traces-page"), "TracesPage"),
});

const traceRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/traces/$traceId",
  component: lazyRouteComponent(() => import("./pages/traces/trace-page"), "TracePage"),
});

const usageRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/usage",
  // Range, bucket and split live in the URL (usage-search.ts parses them leniently).
  validateSearch: parseUsageSearch,
  component: lazyRouteComponent(() => import("./pages/usage/usage-page"), "UsagePage"),
});

const limitsRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/limits",
  component: lazyRouteComponent(() => import("./pages/limits/limits-page"), "LimitsPage"),
});

const relabelRunRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/relabel/$runId",
  component: lazyRouteComponent(() => import("./pages/relabel/relabel-run-page"), "RelabelRunPage"),
});

const monitorsRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/monitors",
  component: lazyRouteComponent(() => import("./pages/monitors/monitors-page"), "MonitorsPage"),
});

const settingsRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/settings",
  validateSearch: parseSettingsSearch,
  component: lazyRouteComponent(() => import("./pages/settings/settings-page"), "SettingsPage"),
});

const datasetsRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/datasets",
  component: lazyRouteComponent(() => import("./pages/datasets/datasets-page"), "DatasetsPage"),
});

const datasetRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/datasets/$datasetId",
  validateSearch: parseEntriesSearch,
  component: lazyRouteComponent(() => import("./pages/datasets/dataset-page"), "DatasetPage"),
});

const modelsRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/models",
  // `?new=1&datasetId=` opens the new fine-tune form for that dataset.
  validateSearch: parseModelsSearch,
  component: lazyRouteComponent(() => import("./pages/models/models-page"), "ModelsPage"),
});

const modelRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/models/$slug",
  component: lazyRouteComponent(() => import("./pages/models/model-page"), "ModelPage"),
});

const playgroundRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/playground",
  // ?fromLog=<logId> and ?model= fill the form (a link from a log, a model or a criterion).
  validateSearch: parsePlaygroundSearch,
  component: lazyRouteComponent(() => import("./pages/playground/playground-page"), "PlaygroundPage"),
});

const routesRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/routes",
  component: lazyRouteComponent(() => import("./pages/routes/routes-page"), "RoutesPage"),
});

const routeRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/routes/$slug",
  component: lazyRouteComponent(() => import("./pages/routes/route-page"), "RoutePage"),
});

const criteriaRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/criteria",
  component: lazyRouteComponent(() => import("./pages/criteria/criteria-page"), "CriteriaPage"),
});

const criterionRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/criteria/$criterionId",
  validateSearch: parseCriterionSearch,
  component: lazyRouteComponent(() => import("./pages/criteria/criterion-page"), "CriterionPage"),
});

const evaluationsRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/evaluations",
  // ?new=1&model=&datasetId= opens "New evaluation" filled in.
  validateSearch: parseEvaluationsSearch,
  component: lazyRouteComponent(() => import("./pages/evaluations/evaluations-page"), "EvaluationsPage"),
});

const evaluationRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/evaluations/$evaluationId",
  validateSearch: parseEvaluationSearch,
  component: lazyRouteComponent(() => import("./pages/evaluations/evaluation-page"), "EvaluationPage"),
});

const membersRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/members",
  component: lazyRouteComponent(() => import("./pages/team/members-page"), "MembersPage"),
});

const accountRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/account",
  component: lazyRouteComponent(() => import("./pages/team/account-page"), "AccountPage"),
});

const auditRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/audit",
  component: lazyRouteComponent(() => import("./pages/team/audit-page"), "AuditPage"),
});

const routeTree = rootRoute.addChildren([
  membersRoute,
  accountRoute,
  auditRoute,
  indexRoute,
  logsRoute.addChildren([logDetailRoute]),
  tracesRoute,
  traceRoute,
  usageRoute,
  limitsRoute,
  monitorsRoute,
  relabelRunRoute,
  settingsRoute,
  datasetsRoute,
  datasetRoute,
  modelsRoute,
  modelRoute,
  routesRoute,
  routeRoute,
  criteriaRoute,
  criterionRoute,
  evaluationsRoute,
  evaluationRoute,
  playgroundRoute,
]);

export const router = createRouter({ routeTree, defaultPreload: "intent", scrollRestoration: true, defaultNotFoundComponent: NotFoundPage });

declare module "@tanstack/react-router" {
  interface Register {
    router: typeof router;
  }
}
