import { Elysia } from "elysia";
import type { Deps } from "../../deps";
import { judgeCriterion } from "../../domain/criteria";
import { authenticateRequest } from "../auth";
import { readJsonBody } from "./body";
import { asObject } from "./wire";

export function criteriaRoutes(deps: Deps) {
  return new Elysia({ name: "rest-criteria" }).post(
    "/criteria/judge",
    async ({ request }) => {
      const ctx = await authenticateRequest(deps, request);
      return judgeCriterion(ctx, asObject(await readJsonBody(request, deps.config.maxBodyBytes)));
    },
    { parse: "none" },
  );
}
