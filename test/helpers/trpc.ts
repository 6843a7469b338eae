import { createTRPCClient, httpLink, TRPCClientError } from "@trpc/client";
import type { AppRouter } from "../../src/http/trpc/router";
import type { TestApp } from "./app";

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
