import { completionsRoutes } from "./completions.routes";
import { criteriaRoutes } from "./criteria.routes";
import { datasetsRoutes } from "./datasets.routes";
import { embeddingsRoutes } from "./embeddings.routes";
import { logsRoutes } from "./logs.routes";
import { messagesRoutes } from "./messages.routes";
import { modelsRoutes } from "./models.routes";
import { otelRoutes } from "./otel.routes";
import { pricingRoutes } from "./pricing.routes";
import { responsesRoutes } from "./responses.routes";
import { trainerRoutes } from "./trainer.routes";
import type { RestRoute } from "./route";

/** Every REST route under /api/v1, in the order the OpenAPI document lists them. */
export const REST_ROUTES: readonly RestRoute[] = [
  ...completionsRoutes,
  ...messagesRoutes,
  ...responsesRoutes,
  ...embeddingsRoutes,
  ...logsRoutes,
  ...otelRoutes,
  ...datasetsRoutes,
  ...modelsRoutes,
  ...criteriaRoutes,
  ...pricingRoutes,
  ...trainerRoutes,
];

/** Every route with its declared types: a union keyed by method and path (see DeclaredRoute). */
export type DeclaredRestRoute =
  | (typeof completionsRoutes)[number]
  | (typeof messagesRoutes)[number]
  | (typeof responsesRoutes)[number]
  | (typeof embeddingsRoutes)[number]
  | (typeof logsRoutes)[number]
  | (typeof otelRoutes)[number]
  | (typeof datasetsRoutes)[number]
  | (typeof modelsRoutes)[number]
  | (typeof criteriaRoutes)[number]
  | (typeof pricingRoutes)[number]
  | (typeof trainerRoutes)[number];
