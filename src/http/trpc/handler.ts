import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import type { Deps } from "../../deps";
import { errorFields } from "../../logger";
import { resolvePrincipal } from "../auth";
import { requestMeta } from "../request-meta";
import { domainErrorOf } from "./init";
import { appRouter } from "./router";

export function createTrpcHandler(deps: Deps): (request: Request) => Promise<Response> {
  return (request) =>
    fetchRequestHandler({
      endpoint: "/trpc",
      req: request,
      router: appRouter,
      createContext: async () => {
        const auth = await resolvePrincipal(deps, request);
        return {
          deps,
          requestId: requestMeta(request).requestId,
          principal: "principal" in auth ? auth.principal : null,
          authError: "error" in auth ? auth.error : null,
        };
      },
      onError: ({ error, path }) => {
        if (domainErrorOf(error).code === "INTERNAL") {
          deps.logger.error("trpc procedure failed", { requestId: requestMeta(request).requestId, path, ...errorFields(error.cause ?? error) });
        }
      },
    });
}
