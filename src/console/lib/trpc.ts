import { QueryCache, QueryClient, MutationCache } from "@tanstack/react-query";
import { createTRPCClient, httpBatchLink, httpBatchStreamLink, splitLink, TRPCClientError } from "@trpc/client";
import { createTRPCContext } from "@trpc/tanstack-react-query";
import type { inferRouterInputs, inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "../../http/trpc/router";

export const { TRPCProvider, useTRPC, useTRPCClient } = createTRPCContext<AppRouter>();

/** The code Hone put on a failed call (VALIDATION, UNAUTHORIZED, NOT_FOUND, ...), if any. */
export function errorCodeOf(error: unknown): string | null {
  if (error instanceof TRPCClientError) return (error.data as { code?: string } | undefined)?.code ?? null;
  return null;
}

/** The API's message, with its issues, as a person should read it. */
/** The field problems an API error names: each issue's path ("groups.0.targets") and its words. */
export function issuesOf(error: unknown): { path: string; message: string }[] {
  if (!(error instanceof TRPCClientError)) return [];
  const issues = (error.data as { issues?: { message: string; path?: (string | number)[] }[] } | undefined)?.issues ?? [];
  return issues
    .filter((i) => i.message)
    .map((i) => {
      const path = (i.path ?? []).join(".");
      // A message may already start with its field's name: said once.
      const message = path && i.message.startsWith(`${path}: `) ? i.message.slice(path.length + 2) : i.message;
      return { path, message };
    });
}

/** Said for validation failures that name their fields: the issues alone carry the words. */
const GENERIC_VALIDATION = "Input validation failed";

export function errorMessageOf(error: unknown): string {
  if (error instanceof TRPCClientError) {
    const details = issuesOf(error)
      // An issue that only repeats the message (with or without its field's name) adds nothing.
      .filter((i) => !error.message.includes(i.message))
      .map((i) => (i.path ? `${i.path}: ${i.message}` : i.message));
    if (details.length && error.message.startsWith(GENERIC_VALIDATION)) return details.join("; ");
    return details.length ? `${error.message}: ${details.join("; ")}` : error.message;
  }
  return error instanceof Error ? error.message : String(error);
}

type SessionListener = () => void;
const sessionEndedListeners = new Set<SessionListener>();
/** Called when any call says the session is gone (signed out elsewhere, expired, key revoked). */
export function onSessionEnded(listener: SessionListener): () => void {
  sessionEndedListeners.add(listener);
  return () => sessionEndedListeners.delete(listener);
}
const reportEnded = (error: unknown) => {
  if (errorCodeOf(error) === "UNAUTHORIZED") for (const l of sessionEndedListeners) l();
};

export function createQueryClient(): QueryClient {
  return new QueryClient({
    // A prefetch sent before the session was checked (meta.beforeSession) fails quietly when
    // nobody is signed in: the sign-in page is the answer, not "your session ended".
    queryCache: new QueryCache({
      onError: (error, query) => {
        if (!query.meta?.beforeSession) reportEnded(error);
      },
    }),
    mutationCache: new MutationCache({
      // A refused sign-in is the sign-in form's own error (a bad key), not a session that ended.
      onError: (error, _variables, _result, mutation) => {
        const key = mutation.options.mutationKey?.[0];
        // Same for the password form and an invitation accepted with a wrong password.
        if (Array.isArray(key) && ["session.signIn", "session.signInWithPassword", "session.acceptInvitation"].includes(key.join("."))) return;
        reportEnded(error);
      },
    }),
    defaultOptions: {
      queries: {
        staleTime: 10_000,
        refetchOnWindowFocus: false,
        // A 4xx will not get better by asking again.
        retry: (count, error) => {
          const code = errorCodeOf(error);
          return count < 2 && (code === null || code === "UNAVAILABLE" || code === "INTERNAL");
        },
      },
    },
  });
}

export function createClient() {
  // The session cookie signs in; this header proves the call comes from the console's own script
  // (a cross-site form cannot send it).
  const headers = () => ({ "x-hone-console": "1" });
  const sameOrigin = (url: URL | RequestInfo, init?: RequestInit) => fetch(url, { ...(init as RequestInit), credentials: "same-origin" });
  return createTRPCClient<AppRouter>({
    links: [
      splitLink({
        // The playground's runs are streamed (deltas as they arrive) over fetch.
        condition: (op) => op.path === "playground.run",
        true: httpBatchStreamLink({ url: "/trpc", maxItems: 1, headers, fetch: sameOrigin }),
        false: httpBatchLink({
          url: "/trpc",
          // Hone refuses batches over HONE_TRPC_MAX_BATCH (10 by default).
          maxItems: 8,
          // Queries go as POST too: a filter can carry 1,000 selected log ids, too long for a URL.
          methodOverride: "POST",
          headers,
          fetch: sameOrigin,
        }),
      }),
    ],
  });
}

export type Client = ReturnType<typeof createClient>;
/** The typed query options and keys of every procedure (what `useTRPC()` answers). */
export type Trpc = ReturnType<typeof useTRPC>;

export type RouterOutputs = inferRouterOutputs<AppRouter>;
export type RouterInputs = inferRouterInputs<AppRouter>;
export type Session = NonNullable<RouterOutputs["session"]["me"]>;

/**
 * A new principal (signed in, signed out, switched project): every cached answer belonged to the
 * old one and is dropped; the session query gets its new value, which re-renders the shell.
 */
export function replaceSession(queryClient: QueryClient, meKey: readonly unknown[], me: Session | null): void {
  queryClient.removeQueries({ predicate: (q) => JSON.stringify(q.queryKey[0]) !== JSON.stringify(meKey[0]) });
  queryClient.setQueryData(meKey, me);
}
