import type { z } from "zod";
import type { Config } from "../../core/config";
import type { Ctx } from "../../domain/context";
import type { Deps } from "../../domain/deps";
import type { KeyScope } from "../../core/key-scope";

// One REST route, declared once: the Elysia mount (mount.ts) and the OpenAPI document (openapi.ts)
// are both made from these declarations, so what is served and what is documented cannot drift.

/**
 * How the runner reads the body before the handler runs. Bodies are not validated here: the domain
 * verb parses its input with its own schema (one truth, one parse); `schema` documents it.
 * - "object": JSON that must be an object (a 400 names what arrived otherwise)
 * - "json": any JSON value, handed over as it is
 * - "stream": nothing is read; the handler streams `request.body` itself
 */
export type BodyRead = "object" | "json" | "stream";

export type QueryParam = { schema: z.ZodType; description: string };

/** `/datasets/:datasetId/export` -> `{ datasetId: string }`. */
export type ParamsOf<P extends string> = P extends `${string}:${infer Name}/${infer Rest}`
  ? { [K in Name]: string } & ParamsOf<`/${Rest}`>
  : P extends `${string}:${infer Name}`
    ? { [K in Name]: string }
    : Record<never, string>;

/**
 * The body as the handler sees it: typed as the input of the route's own schema, which the verb
 * it is handed to parses (so a handler calls its verb without a cast). Not yet checked against it:
 * "object" guarantees a JSON object, "json" any JSON value.
 */
type BodyOf<R extends BodyRead | undefined, S extends z.ZodType> = R extends "object" | "json" ? z.input<S> : undefined;

export type RouteInput<P extends string, Q, R extends BodyRead | undefined, A extends Auth, S extends z.ZodType = z.ZodType> = {
  /** The authenticated caller; public routes have none. */
  ctx: A extends "public" ? null : Ctx;
  deps: Deps;
  request: Request;
  params: ParamsOf<P>;
  /**
   * The declared query parameters as they arrived (strings, unchecked), typed as their schemas'
   * input: the verb they are handed to parses them.
   */
  query: { [K in keyof Q]?: Q[K] extends QueryParam ? z.input<Q[K]["schema"]> & string : string };
  body: BodyOf<R, S>;
};

/** "project": a project API key (`Authorization: Bearer …`) is required; "public": no key. */
export type Auth = "project" | "public";

export type RestRoute<
  P extends string = string,
  Q extends Record<string, QueryParam> = Record<string, QueryParam>,
  R extends BodyRead | undefined = BodyRead | undefined,
  A extends Auth = Auth,
  S extends z.ZodType = z.ZodType,
> = {
  method: "get" | "post" | "put" | "delete";
  /** Elysia syntax (`/models/:modelSlug`), relative to /api/v1; the document shows `{modelSlug}`. */
  path: P;
  summary: string;
  tag: string;
  auth: A;
  body?: { schema: S; read: R & BodyRead; contentType?: string };
  query?: Q;
  /** Request headers the route reads, for the document: name -> description. */
  headers?: Record<string, string>;
  /** The 200 answer. JSON unless `contentType` says otherwise (application/x-ndjson: one row per line). */
  response: { schema: z.ZodType; contentType?: string };
  /** The error statuses the route can answer, for the document. */
  errors: number[];
  /**
   * "openai": every failure, authentication included, also carries OpenAI's `error` object.
   * "anthropic": every failure is Anthropic's error body, and the key may come as `x-api-key`.
   */
  errorFormat?: "openai" | "anthropic";
  /** Headers besides Authorization that may carry the project key (x-api-key; OTLP exporters' own). */
  keyHeaders?: readonly string[];
  deprecated?: boolean;
  /**
   * The key scope the route needs (a scoped key without it gets a 403): by default `gateway` for
   * the Gateway tag, `read` for other GETs, `write` for other changes.
   */
  scope?: KeyScope;
  /** The route's own body limit, in place of HONE_MAX_BODY_BYTES (checked before routing). */
  maxBodyBytes?: (config: Config) => number;
  /** A route that only answers when the config enables it; otherwise a 404 with `reason`. */
  enabledIf?: { enabled: (config: Config) => boolean; reason: string };
  /** A plain value is sent as JSON; a Response (streams, raw text) is sent as it is. */
  handler: (input: RouteInput<P, Q, R, A, S>) => unknown;
};

/**
 * What a declared route keeps of its declaration at the type level: its method, path, query,
 * body schema and response schema (so a typed client, such as the tests' REST helper, can name a
 * route by `"POST /datasets"` and get its body's and answer's types).
 */
export type DeclaredRoute<M extends RestRoute["method"], P extends string, Q, S extends z.ZodType, RS extends z.ZodType, E> = RestRoute & {
  /** Types only: never set at run time. */
  readonly declared?: { method: M; path: P; query: Q; body: S; response: RS; errorFormat: E };
};

/** Declares a route; the identity, so the handler's params, query and body are typed from the declaration. */
export function route<
  const M extends RestRoute["method"],
  const P extends string,
  const Q extends Record<string, QueryParam> = Record<never, QueryParam>,
  const R extends BodyRead | undefined = undefined,
  const A extends Auth = "project",
  S extends z.ZodType = z.ZodType,
  RS extends z.ZodType = z.ZodType,
  const E extends RestRoute["errorFormat"] = undefined,
>(r: RestRoute<P, Q, R, A, S> & { method: M; response: { schema: RS }; errorFormat?: E }): DeclaredRoute<M, P, Q, S, RS, E> {
  return r as unknown as DeclaredRoute<M, P, Q, S, RS, E>;
}

/** `/models/:modelSlug` -> `/models/{modelSlug}` (OpenAPI's template syntax). */
export const openApiPath = (path: string) => path.replace(/:(\w+)/g, "{$1}").replace(/\/\*$/, "/{path}");

/** A route path as a pattern of request paths: `:name` one segment, a final `*` the rest (a file path). */
export const pathPattern = (path: string) => new RegExp(`^/api/v1${path.replace(/:\w+/g, "[^/]+").replace(/\/\*$/, "/.+")}$`);

/** The key scope a route needs (its own, or the default by tag and method). */
export function scopeOf(r: RestRoute): KeyScope {
  return r.scope ?? (r.tag === "Gateway" ? "gateway" : r.method === "get" ? "read" : "write");
}
