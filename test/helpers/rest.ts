import { z } from "zod";
import type { ParamsOf } from "../../src/http/rest/route";
import { REST_ROUTES, type DeclaredRestRoute } from "../../src/http/rest/routes";
import { ChatErrorEnvelope, ErrorEnvelope } from "../../src/http/rest/wire-schemas";
import type { TestApp } from "./app";

// A typed REST client for tests: a route is named as it is declared ("POST /datasets/:datasetId/entries"),
// its body is typed as the input of the route's own schema, and a 2xx answer comes back parsed with
// the route's response schema (typed as its output), so tests read fields without `any` and an answer
// that strays from the documented shape fails where it is read.

type Declared = NonNullable<DeclaredRestRoute["declared"]>;

/** `"GET /datasets"`, `"POST /datasets/:datasetId/entries"`, ...: every declared route. */
export type RouteKey = Declared extends infer D
  ? D extends { method: infer M extends string; path: infer P extends string }
    ? `${Uppercase<M>} ${P}`
    : never
  : never;

type DeclOf<K extends RouteKey> = K extends `${infer M} ${infer P}` ? Extract<Declared, { method: Lowercase<M>; path: P }> : never;
type PathOf<K extends RouteKey> = DeclOf<K>["path"];
type QueryOf<K extends RouteKey> = { [Q in keyof DeclOf<K>["query"]]?: string | number | boolean };
/** The route's answer as its response schema parses it (one row of it, for a JSON-lines answer). */
export type RestOutput<K extends RouteKey> = z.output<DeclOf<K>["response"]>;

type Common = {
  /** API key; the test app's project key by default, null for no authorization header. */
  key?: string | null;
  headers?: Record<string, string>;
};
type ParamsOption<K extends RouteKey> = keyof ParamsOf<PathOf<K>> extends never ? { params?: never } : { params: ParamsOf<PathOf<K>> };
/** For an answer expected to succeed: the body as the route's schema accepts it. */
export type OkOptions<K extends RouteKey> = Common & ParamsOption<K> & { query?: QueryOf<K>; body?: z.input<DeclOf<K>["body"]> };
/** For an answer expected to fail, any body at all (a string is sent as it is) and any query. */
export type FailOptions<K extends RouteKey> = Common & ParamsOption<K> & { query?: Record<string, string | number | boolean>; body?: unknown };
type Args<O> = Record<never, never> extends O ? [opts?: O] : [opts: O];

// Error bodies are parsed strictly: a member the documented shape does not have fails the test
// (successful answers are checked the same way by the app itself, RestOptions.checkResponses).
const OpenAiOnlyError = z.strictObject({ error: z.strictObject({ message: z.string(), type: z.string(), code: z.unknown(), param: z.unknown() }) });
const AnthropicError = z.strictObject({ type: z.literal("error"), error: z.strictObject({ type: z.string(), message: z.string() }) });
const StrictEnvelope = ErrorEnvelope.strict();
const StrictChatEnvelope = ChatErrorEnvelope.strict();

/** The route's error body: SPEC's envelope; OpenAI's error object (with the envelope, or alone on /responses); Anthropic's. */
type ErrorBodyOf<K extends RouteKey> = DeclOf<K>["errorFormat"] extends "anthropic"
  ? z.output<typeof AnthropicError>
  : DeclOf<K>["errorFormat"] extends "openai"
    ? z.output<typeof OpenAiOnlyError> & Partial<z.output<typeof ErrorEnvelope>>
    : z.output<typeof ErrorEnvelope>;

/** SPEC's error envelope, the body of a REST error (for tests that read a raw Response). */
export type ErrorBody = z.output<typeof ErrorEnvelope>;
/** The gateway's error body: the envelope with OpenAI's error object beside it. */
export type ChatErrorBody = z.output<typeof ChatErrorEnvelope>;

/** A failed answer: its status, headers and error body. */
export type RestFailure<K extends RouteKey> = { status: number; headers: Headers; body: ErrorBodyOf<K> };

function find(key: string) {
  const r = REST_ROUTES.find((route) => `${route.method.toUpperCase()} ${route.path}` === key);
  if (!r) throw new Error(`no REST route ${key}`);
  return r;
}

function urlOf(path: string, params: Record<string, string> = {}, query: Record<string, string | number | boolean | undefined> = {}): string {
  const filled = path.replace(/:(\w+)/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`missing path parameter ${name} for ${path}`);
    return encodeURIComponent(value);
  });
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined) search.set(k, String(v));
  const qs = search.toString();
  return `/api/v1${filled}${qs ? `?${qs}` : ""}`;
}

function parsed<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const result = schema.safeParse(value);
  if (!result.success)
    throw new Error(`${what}: the answer does not match its schema: ${z.prettifyError(result.error)}\n${JSON.stringify(value).slice(0, 500)}`);
  return result.data;
}

export type Rest = {
  /** Sends the request and answers the Response as it came. */
  raw<K extends RouteKey>(key: K, ...opts: Args<FailOptions<K>>): Promise<Response>;
  /** A 2xx answer, parsed with the route's response schema (the rows of a JSON-lines answer); any other status fails, naming the body. */
  ok<K extends RouteKey>(key: K, ...opts: Args<OkOptions<K>>): Promise<RestOutput<K>>;
  /** The rows of a JSON-lines answer (exports), each parsed with the route's response schema. */
  lines<K extends RouteKey>(key: K, ...opts: Args<OkOptions<K>>): Promise<RestOutput<K>[]>;
  /** A non-2xx answer, its body parsed as the route's error shape; a 2xx fails, naming the body. */
  fail<K extends RouteKey>(key: K, ...opts: Args<FailOptions<K>>): Promise<RestFailure<K>>;
};

/** The typed REST client of a test app (the project's key unless a call names another). */
export function rest(t: TestApp, defaults: { key?: string | null } = {}): Rest {
  const raw = (key: string, opts: FailOptions<RouteKey> = {} as FailOptions<RouteKey>): Promise<Response> => {
    const r = find(key);
    const url = urlOf(r.path, opts.params as Record<string, string> | undefined, opts.query);
    return t.request(r.method.toUpperCase(), url, { body: opts.body, key: opts.key === undefined ? defaults.key : opts.key, headers: opts.headers });
  };
  const success = async (key: string, opts: unknown) => {
    const res = await raw(key, opts as FailOptions<RouteKey>);
    const text = await res.text();
    if (res.status < 200 || res.status >= 300) throw new Error(`${key}: expected a 2xx answer, got ${res.status}: ${text.slice(0, 500)}`);
    return { route: find(key), text };
  };
  return {
    raw: raw as Rest["raw"],
    ok: (async (key: string, opts?: unknown) => {
      const { route, text } = await success(key, opts);
      if (route.response.contentType === "application/x-ndjson") throw new Error(`${key} answers JSON lines: use rest.lines`);
      return parsed(route.response.schema, JSON.parse(text), key);
    }) as Rest["ok"],
    lines: (async (key: string, opts?: unknown) => {
      const { route, text } = await success(key, opts);
      return text
        .split("\n")
        .filter((line) => line.trim())
        .map((line, i) => parsed(route.response.schema, JSON.parse(line), `${key} line ${i + 1}`));
    }) as Rest["lines"],
    fail: (async (key: string, opts?: unknown) => {
      const res = await raw(key, opts as FailOptions<RouteKey>);
      const text = await res.text();
      if (res.status >= 200 && res.status < 300) throw new Error(`${key}: expected a failure, got ${res.status}: ${text.slice(0, 500)}`);
      const format = find(key).errorFormat;
      const value: unknown = JSON.parse(text);
      const body =
        format === "anthropic"
          ? parsed(AnthropicError, value, key)
          : format === "openai"
            ? parsed(z.union([StrictChatEnvelope, OpenAiOnlyError]), value, key)
            : parsed(StrictEnvelope, value, key);
      return { status: res.status, headers: res.headers, body };
    }) as Rest["fail"],
  };
}
