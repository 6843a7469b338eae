import type { Role } from "../../core/key-scope";
import { leastRoleOf, type ProcedureMeta, publicProcedure, router } from "./init";
import { adminRouter } from "./routers/admin";
import { apiKeysRouter } from "./routers/api-keys";
import { criteriaRouter } from "./routers/criteria";
import { datasetsRouter } from "./routers/datasets";
import { evaluationsRouter } from "./routers/evaluations";
import { logsRouter } from "./routers/logs";
import { modelsProcedures } from "./routers/models";
import { fineTunesProcedures } from "../verbs/fine-tunes";
import { maskingProcedures } from "../verbs/masking";
import { tracesProcedures } from "../verbs/traces";
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
  masking: router(maskingProcedures),
  traces: router(tracesProcedures),
  team: teamRouter,
  /** What each procedure needs, as the server enforces it: the console offers only what the signed-in role may do. */
  access: router({ rules: publicProcedure.query(() => accessRules()) }),
});

let rules: Record<string, Role> | null = null;

/**
 * The least role of every procedure a person's console calls (path -> role), read from the router
 * itself: the same declarations the checks use (ProcedureMeta, else the procedure's kind).
 */
export function accessRules(): Record<string, Role> {
  const procedures = (appRouter as unknown as { _def: { procedures: Record<string, { _def: { type: string; meta?: ProcedureMeta } }> } })._def.procedures;
  rules ??= Object.fromEntries(
    Object.entries(procedures)
      .filter(([path]) => !path.startsWith("admin.") && !path.startsWith("session.") && !path.startsWith("access."))
      .map(([path, p]) => [path, leastRoleOf(p._def.type, p._def.meta)]),
  );
  return rules;
}

/** Import this type into a TypeScript frontend for a fully typed @trpc/client. */
export type AppRouter = typeof appRouter;
