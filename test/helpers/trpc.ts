import { createTRPCClient, httpLink, TRPCClientError } from "@trpc/client";
import type { AppRouter } from "../../src/http/trpc/router";
import type { TestApp } from "./app";

/** A tRPC error answer as a raw Response carries it (httpLink's shape, not batched). */
export type TrpcErrorBody = { error: { message: string; code: number; data: { code: string; httpStatus?: number; [key: string]: unknown } } };

/** A typed tRPC client (AppRouter) that calls through app.handle, with the given key (the project's by default). */
export function trpcClient(t: TestApp, key: string = t.project.apiKey) {
  return createTRPCClient<AppRouter>({
    links: [
      httpLink({
        url: "http://localhost/trpc",
        headers: { authorization: `Bearer ${key}` },
        fetch: (url, init) => t.app.handle(new Request(url, init as RequestInit)),
      }),
    ],
  });
}

/** The TRPCClientError a call fails with; the test fails if the call succeeds. */
export async function trpcFailure(p: Promise<unknown>): Promise<TRPCClientError<AppRouter>> {
  try {
    await p;
  } catch (err) {
    if (err instanceof TRPCClientError) return err as TRPCClientError<AppRouter>;
    throw err;
  }
  throw new Error("expected the call to fail");
}

/**
 * A browser-like tRPC client: keeps the session cookie it is given and sends the console header,
 * as the console does. `gql` posts GraphQL with the same cookie.
 */
export function consoleClient(t: TestApp, opts: { consoleHeader?: boolean; userAgent?: string } = {}) {
  const jar: { cookie: string | null; setCookies: string[] } = { cookie: null, setCookies: [] };
  const headers = (): Record<string, string> => ({
    ...(jar.cookie ? { cookie: jar.cookie } : {}),
    ...(opts.consoleHeader === false ? {} : { "x-hone-console": "1" }),
    ...(opts.userAgent ? { "user-agent": opts.userAgent } : {}),
  });
  const client = createTRPCClient<AppRouter>({
    links: [
      httpLink({
        url: "http://localhost/trpc",
        headers,
        fetch: async (url, init) => {
          const res = await t.app.handle(new Request(url, init as RequestInit));
          for (const c of res.headers.getSetCookie()) {
            jar.setCookies.push(c);
            const [pair] = c.split(";");
            jar.cookie = pair!.endsWith("=") ? null : pair!;
          }
          return res;
        },
      }),
    ],
  });
  const gql = async (query: string, variables?: Record<string, unknown>) => {
    const res = await t.app.handle(
      new Request("http://localhost/graphql", {
        method: "POST",
        headers: { "content-type": "application/json", ...headers() },
        body: JSON.stringify({ query, variables }),
      }),
    );
    return (await res.json()) as { data?: Record<string, unknown> | null; errors?: { message: string; extensions?: { code?: string } }[] };
  };
  return { client, jar, gql };
}

/** The tRPC error code a call fails with, or "OK". */
export async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return "OK";
  } catch (err) {
    if (err instanceof TRPCClientError) return (err.data as { code: string }).code;
    throw err;
  }
}
