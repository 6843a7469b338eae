import type { TraceContext } from "../lib/trace-context";
import type { Queryable } from "../db/client";
import type { Deps } from "./deps";
import type { KeyGrant, Role } from "../core/key-scope";
import type { InternalKind } from "../core/internal-kinds";

/** Who is acting. Project-scoped verbs take ctx.projectId, which only an authenticated key sets. */
export type { KeyGrant };

export type Actor =
  | { type: "apiKey"; keyId: string; projectId: string; grant?: KeyGrant }
  /** A person signed in to the console (their session), with their role in the project acted on. */
  | {
      type: "user";
      userId: string;
      email: string;
      sessionId: string;
      organizationId: string;
      /** Their role in the project acted on (the organisation role, narrowed by the project's). */
      role: Role;
      /** Their role in the organisation: members, invitations and the audit log go by it. */
      orgRole: Role;
    }
  | { type: "admin" }
  | { type: "cli" }
  | { type: "system"; job: string };

/**
 * What one answer may still carry (HONE_MAX_RESPONSE_BYTES): one per GraphQL operation and per
 * tRPC batch, shared by everything that answer loads. Verbs that read stored content (payloads,
 * entries, alignment rows, outputs) charge its stored size before loading it (domain/answer-budget.ts).
 */
export type AnswerBudget = { readonly limit: number; used: number; refused: string | null };

/** Context of a verb that is not scoped to one project (creating projects, authenticating). */
export type BaseCtx = {
  deps: Deps;
  actor: Actor;
  requestId: string;
  /** When set, verbs run their queries inside this transaction. */
  tx?: Queryable;
  /** When set, what the answer being built may still carry. */
  answer?: AnswerBudget;
  /** Set for Hone's own work (judges, evaluations, ...): the model calls it makes are logged as internal, of this kind. */
  internal?: InternalKind;
  /** Headers the answer of an HTTP request carries besides its own (the rate-limit headers of the gateway). */
  replyHeaders?: Record<string, string>;
  /** The caller's trace, from the request's headers (domain/calls/trace-context.ts): the calls it makes join it. */
  trace?: TraceContext | null;
};

/** Context of a project-scoped verb: every query it runs is filtered by projectId. */
export type Ctx = BaseCtx & { projectId: string };

/** The connection a verb should use: the caller's transaction, or the pool. */
export const dbOf = (ctx: { deps: Deps; tx?: Queryable }): Queryable => ctx.tx ?? ctx.deps.database.db;

/**
 * Runs `fn` in a transaction on the context's connection: `inTx` is the context whose verbs run
 * their queries in it, `tx` the transaction itself (a nested call opens a savepoint).
 */
export function withTx<C extends { deps: Deps; tx?: Queryable }, T>(ctx: C, fn: (inTx: C & { tx: Queryable }, tx: Queryable) => Promise<T>): Promise<T> {
  return dbOf(ctx).transaction((tx) => fn({ ...ctx, tx }, tx));
}

export function systemCtx(deps: Deps, job: string): BaseCtx {
  return { deps, actor: { type: "system", job }, requestId: `${job}-${Date.now()}` };
}
