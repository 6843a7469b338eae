import { judgeCriterion, JudgeRequest } from "../../domain/criteria";
import { route } from "./route";
import * as W from "./wire-schemas";

export const criteriaRoutes = [
  route({
    method: "post",
    path: "/criteria/judge",
    // Sent by the SDKs beside model calls: a gateway key may.
    scope: "gateway",
    summary: "Judge an output with a criterion (<id> for the latest version, <id>@v<N> for a fixed one)",
    tag: "Criteria",
    auth: "project",
    body: { schema: JudgeRequest, read: "object" },
    response: { schema: W.JudgeWire },
    errors: [400, 401, 404, 502, 504],
    handler: ({ ctx, body }) => judgeCriterion(ctx, body),
  }),
];
