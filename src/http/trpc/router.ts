import { router } from "./init";
import { adminRouter } from "./routers/admin";
import { apiKeysRouter } from "./routers/api-keys";
import { criteriaRouter } from "./routers/criteria";
import { datasetsRouter } from "./routers/datasets";
import { evaluationsRouter } from "./routers/evaluations";
import { logsRouter } from "./routers/logs";
import { modelsProcedures } from "./routers/models";
import { fineTunesProcedures } from "../verbs/fine-tunes";
import { trainersProcedures } from "../verbs/trainers";
import { monitorsRouter } from "./routers/monitors";
import { onlineEvalsRouter } from "./routers/online-evals";
import { relabelRunsRouter } from "./routers/relabel-runs";
import { customProvidersRouter, providerKeysRouter } from "./routers/provider-settings";
import { sessionRouter } from "./routers/session";
import { playgroundRouter } from "./routers/playground";
import { pricingRouter } from "./routers/pricing";
import { limitsRouter, webhooksRouter } from "./routers/limits";
import { routesRouter } from "./routers/routes";
import { teamRouter } from "./routers/team";

export const appRouter = router({
  admin: adminRouter,
  apiKeys: apiKeysRouter,
  criteria: criteriaRouter,
  datasets: datasetsRouter,
  evaluations: evaluationsRouter,
  logs: logsRouter,
  models: router({ ...modelsProcedures, ...fineTunesProcedures }),
  trainers: router(trainersProcedures),
  monitors: monitorsRouter,
  onlineEvals: onlineEvalsRouter,
  relabelRuns: relabelRunsRouter,
  providerKeys: providerKeysRouter,
  customProviders: customProvidersRouter,
  session: sessionRouter,
  playground: playgroundRouter,
  routes: routesRouter,
  pricing: pricingRouter,
  limits: limitsRouter,
  webhooks: webhooksRouter,
  team: teamRouter,
});

/** Import this type into a TypeScript frontend for a fully typed @trpc/client. */
export type AppRouter = typeof appRouter;
