import { AsyncLocalStorage } from "node:async_hooks";
import {
  type DocumentNode,
  type FragmentDefinitionNode,
  GraphQLError,
  getOperationAST,
  Kind,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from "graphql";
import { getArgumentValues } from "graphql/execution/values";
import { auditRequest } from "../audit-request";
import { createYoga, type Plugin, type YogaServerInstance } from "graphql-yoga";
import { requireScope } from "../../domain/projects";
import type { Deps } from "../../domain/deps";
import { DomainError, statusOf, toDomainError } from "../../core/errors";
import { errorFields } from "../../core/logger";
import { newAnswerBudget } from "../../domain/answer-budget";
import { type Principal, resolvePrincipal } from "../auth";
import { authenticateSession, sessionTokenOf } from "../session-cookie";
import { inlineHashes, pageSecurityHeaders } from "../page-security";
import { requestMeta } from "../request-meta";
import { errorEnvelope, errorHeaders } from "../rest/errors";
import type { GqlContext } from "./builder";
import { limitsOf, useOperationLimits } from "./limits";
import { schema } from "./schema";

type Yoga = YogaServerInstance<Record<string, unknown>, GqlContext>;

/** The one GraphQL error mapper: DomainError -> message + extensions.code (+ issues). */
function toGraphqlError(err: unknown, deps: Deps, requestId?: string): GraphQLError {
  const original = err instanceof GraphQLError ? (err.originalError ?? null) : err;
  if (err instanceof GraphQLError && !original) {
    // Parse and validation errors of the query itself: the client's mistake.
    return new GraphQLError(err.message, {
      nodes: err.nodes,
      positions: err.positions,
      path: err.path,
      extensions: { ...err.extensions, code: (err.extensions.code as string | undefined) ?? "GRAPHQL_VALIDATION_FAILED" },
    });
  }
  if (original instanceof GraphQLError) return toGraphqlError(original, deps, requestId);
  const domain = toDomainError(original);
  if (domain.code === "INTERNAL") deps.logger.error("graphql resolver failed", { requestId, ...errorFields(original) });
  return new GraphQLError(domain.message, {
    path: err instanceof GraphQLError ? err.path : undefined,
    extensions: { code: domain.code, issues: domain.issues, http: { status: 200 } },
  });
}

function isGraphiqlPage(request: Request): boolean {
  return request.method === "GET" && (request.headers.get("accept") ?? "").includes("text/html");
}

/**
 * GraphiQL's Content-Security-Policy, from the page yoga renders: its one inline script by hash;
 * the Monaco editors' workers, which the script starts from blob: URLs; its icons and fonts, which
 * are inlined as data: URLs; requests to /graphql itself. Styles need 'unsafe-inline': Monaco and
 * GraphiQL add <style> elements and style attributes at run time, which no hash can cover (checked
 * in Chromium, which reports a violation for each without it). No eval is needed.
 */
function graphiqlPolicy(html: string): string {
  return [
    "default-src 'none'",
    `script-src ${inlineHashes(html, "script").join(" ")}`,
    "style-src 'unsafe-inline'",
    "img-src data:",
    "font-src data:",
    "worker-src blob:",
    "connect-src 'self'",
    "form-action 'none'",
  ].join("; ");
}

export function createGraphqlHandler(deps: Deps): (request: Request) => Promise<Response> {
  // yoga's maskError sees the error only: the request id travels beside it, so a resolver failure
  // is logged with the id the client got in x-request-id.
  const requestIds = new AsyncLocalStorage<string>();
  let yoga: Promise<Yoga> | undefined;
  let pageHeaders: Record<string, string> | undefined;
  const build = async (): Promise<Yoga> => {
    // The inlined GraphiQL page is a 9 MB module (it works offline): it is loaded when the page is
    // first asked for, not with the API, so a server that never shows it keeps a small heap (and
    // short garbage-collection pauses on the gateway).
    const renderGraphiQL = deps.config.graphiql
      ? async (options: Parameters<typeof import("@graphql-yoga/render-graphiql").renderGraphiQL>[0]) =>
          (await import("@graphql-yoga/render-graphiql")).renderGraphiQL(options)
      : undefined;
    return createYoga<Record<string, unknown>, GqlContext>({
      schema,
      graphqlEndpoint: "/graphql",
      graphiql: deps.config.graphiql ? { title: "Hone GraphQL", headers: JSON.stringify({ Authorization: "Bearer hone_sk_..." }) } : false,
      ...(renderGraphiQL ? { renderGraphiQL } : {}),
      landingPage: false,
      logging: false,
      plugins: [useOperationLimits(limitsOf(deps.config)), useRefusedReadsAudit(), useKeyScopes()],
      maskedErrors: {
        maskError: (error) => toGraphqlError(error, deps, requestIds.getStore()),
      },
    }) as unknown as Yoga;
  };

  return async (request) => {
    yoga ??= build();
    const instance = await yoga;
    if (isGraphiqlPage(request)) {
      // A browser visit carries no key: yoga gets a bare request for the page, so a `?query=` in
      // the URL can never run unauthenticated. With GraphiQL off (where yoga would run it with no
      // principal) the request is an ordinary GET and needs a key like any other.
      if (deps.config.graphiql) {
        const page = await instance.fetch(new Request(new URL("/graphql", request.url), { headers: { accept: "text/html" } }), {} as GqlContext);
        if (!page.ok) return page;
        if (!pageHeaders) {
          // The page is the same on every view (its options are fixed at start): its hashes are
          // computed once, from the first page served.
          const html = await page.text();
          pageHeaders = pageSecurityHeaders(graphiqlPolicy(html));
          return new Response(html, { status: page.status, headers: { ...Object.fromEntries(page.headers), ...pageHeaders } });
        }
        return new Response(page.body, { status: page.status, headers: { ...Object.fromEntries(page.headers), ...pageHeaders } });
      }
    }
    const auth = await principalOf(deps, request);
    if ("error" in auth) return unauthenticated(auth.error);
    // One budget per operation, shared by every resolver that reads stored content.
    auth.principal.ctx.answer = newAnswerBudget(deps.config.maxResponseBytes);
    const execute = () => requestIds.run(requestMeta(request).requestId, () => instance.fetch(request, { principal: auth.principal }));
    if (auth.principal.kind !== "project") return execute();
    // A project's operations run a few at a time (HONE_PROJECT_CONCURRENCY): its burst waits in
    // its own queue, or is refused with 429, and never holds up another project.
    let release: () => void;
    try {
      release = await deps.fairShare.acquire(auth.principal.ctx.projectId, "graphql");
    } catch (err) {
      return unauthenticated(toDomainError(err));
    }
    try {
      return await execute();
    } finally {
      release();
    }
  };
}

/**
 * A bearer token (API key or admin token), or else the console's session cookie (with its header):
 * a person's session acts with their role in its project.
 */
async function principalOf(deps: Deps, request: Request): Promise<{ principal: Principal } | { error: DomainError }> {
  const sessionToken = request.headers.get("authorization") ? null : sessionTokenOf(request);
  if (!sessionToken) return resolvePrincipal(deps, request);
  try {
    const auth = await authenticateSession(deps, request, sessionToken);
    const principal = auth.principal ?? auth.admin;
    if (!principal) return { error: new DomainError("NOT_FOUND", "No project is selected: create one or switch to one") };
    return { principal };
  } catch (err) {
    const domain = toDomainError(err);
    if (domain.code === "INTERNAL") throw err;
    return { error: domain };
  }
}

/**
 * A scoped key's surfaces: queries need `read` (a gateway-only key reads nothing here), checked
 * before execution, with the operation chosen. Mutations check `write` and their role field by
 * field as they run (mutation-guard.ts), however the operation is written.
 */
function useKeyScopes(): Plugin<Record<string, unknown>, GqlContext> {
  return {
    async onExecute({ args, setResultAndStopExecution }) {
      const context = args.contextValue as unknown as Partial<GqlContext> & { request?: Request };
      const ctx = context.principal?.ctx;
      if (!ctx) return;
      const op = getOperationAST(args.document, args.operationName ?? undefined);
      if (op?.operation === "mutation") return;
      try {
        requireScope(ctx.actor, "read", "read this project (GraphQL queries)");
      } catch (err) {
        const e = toDomainError(err);
        if (context.request && op) {
          for (const name of topLevelFields(op, args.document)) {
            await auditRequest(ctx.deps, context.request, { ...auditWho(context.principal!), verb: name, input: null, error: e });
          }
        }
        setResultAndStopExecution({ errors: [new GraphQLError(e.message, { extensions: { code: e.code, http: { status: 403 } } })] });
      }
    },
  };
}

const auditWho = (principal: GqlContext["principal"]) => ({
  actor: principal.ctx.actor,
  projectId: principal.kind === "project" ? principal.ctx.projectId : null,
  transport: "graphql" as const,
});

// A refused read is recorded once per field name, and an operation records at most this many.
const MAX_REFUSALS_RECORDED = 20;

/** The names of an operation's top-level fields, through its fragments, for the record of a refusal. */
function topLevelFields(op: OperationDefinitionNode, document: DocumentNode): string[] {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const names = new Set<string>();
  const seen = new Set<string>();
  const walk = (set: SelectionSetNode) => {
    for (const sel of set.selections) {
      if (names.size >= MAX_REFUSALS_RECORDED) return;
      if (sel.kind === Kind.FIELD) {
        if (!sel.name.value.startsWith("__")) names.add(sel.name.value);
      } else if (sel.kind === Kind.INLINE_FRAGMENT) walk(sel.selectionSet);
      else if (!seen.has(sel.name.value)) {
        seen.add(sel.name.value);
        const f = fragments.get(sel.name.value);
        if (f) walk(f.selectionSet);
      }
    }
  };
  walk(op.selectionSet);
  return [...names];
}

/**
 * Mutations are audited where they run (mutation-guard.ts). A read is not, unless it was refused
 * (FORBIDDEN) to someone: then each refused field is recorded, as a refused change is. This looks
 * only at the errors of the answer, so a query that is not refused costs nothing more.
 */
function useRefusedReadsAudit(): Plugin<Record<string, unknown>, GqlContext> {
  return {
    onExecute({ args }) {
      const op = getOperationAST(args.document, args.operationName ?? undefined);
      if (op?.operation === "mutation") return;
      const context = args.contextValue as unknown as Partial<GqlContext> & { request?: Request };
      const principal = context.principal;
      const request = context.request;
      if (!principal || !request) return;
      return {
        async onExecuteDone({ result }) {
          const errors = (result as { errors?: readonly GraphQLError[] }).errors;
          if (!errors?.length) return;
          const recorded = new Set<string>();
          const query = args.schema.getQueryType()?.getFields();
          for (const error of errors) {
            const original = error.originalError;
            const node = error.nodes?.[0];
            if (!original || node?.kind !== Kind.FIELD || toDomainError(original).code !== "FORBIDDEN") continue;
            const name = node.name.value;
            if (recorded.has(name) || recorded.size >= MAX_REFUSALS_RECORDED) continue;
            recorded.add(name);
            let input: unknown = null;
            const field = error.path?.length === 1 ? query?.[name] : undefined;
            try {
              input = field ? getArgumentValues(field, node, args.variableValues ?? {}) : null;
            } catch {
              input = null;
            }
            await auditRequest(principal.ctx.deps, request, { ...auditWho(principal), verb: name, input, error: original });
          }
        },
      };
    },
  };
}

// Both readers are served: REST-style clients read {message, code, issues}, GraphQL clients read errors[].
function unauthenticated(err: DomainError): Response {
  return Response.json(
    { ...errorEnvelope(err), errors: [{ message: err.message, extensions: { code: err.code } }] },
    { status: statusOf(err), headers: errorHeaders(err) },
  );
}
