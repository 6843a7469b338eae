import type { TestApp } from "./app";

export type GqlError = { message: string; path?: (string | number)[]; extensions?: { code?: string; [key: string]: unknown } };
/** A typed answer when the caller names the data type; untyped (as tests that poke at error shapes need) otherwise. */
export type GqlResponse<T> = 0 extends 1 & T ? any : { status: number; data?: T | null; errors?: GqlError[] };
/** A raw /graphql answer expected to fail (read from a Response): its errors, and whatever data came. */
export type GqlErrorBody = { data?: unknown; errors: GqlError[] };
export type GqlOptions = {
  /** API key; the test app's project key by default, null for no authorization header. */
  key?: string | null;
  headers?: Record<string, string>;
};

/** A GraphQL request through app.handle: the body (data, errors, ...) plus the HTTP status. */
export async function gql<T = any>(t: TestApp, query: string, variables: Record<string, unknown> = {}, opts: GqlOptions = {}): Promise<GqlResponse<T>> {
  // A bare key where opts belong (the old per-file signature) would silently use the default key.
  if (typeof opts !== "object" || opts === null) throw new Error("gql(t, query, variables, opts): pass the key as { key }");
  const res = await t.request("POST", "/graphql", { body: { query, variables }, key: opts.key, headers: opts.headers });
  const body = (await res.json()) as Record<string, unknown>;
  return { status: res.status, ...body };
}

/** Like gql, for setup and happy paths, where any GraphQL error fails the test, naming the errors. */
export async function gqlData<T = any>(t: TestApp, query: string, variables: Record<string, unknown> = {}, opts: GqlOptions = {}): Promise<T> {
  const r = (await gql<T>(t, query, variables, opts)) as { status: number; data?: T | null; errors?: GqlError[] };
  if (r.errors?.length || r.data == null) {
    throw new Error(`GraphQL errors (HTTP ${r.status}): ${JSON.stringify(r.errors ?? r)}\nquery: ${query}`);
  }
  return r.data;
}
