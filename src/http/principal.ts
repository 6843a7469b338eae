import type { BaseCtx, Ctx } from "../domain/context";

/** Who a management request acts as: a project (a key, or a console session's project) or the admin. */
export type Principal = { kind: "project"; ctx: Ctx } | { kind: "admin"; ctx: BaseCtx };
