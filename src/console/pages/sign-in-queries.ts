// The sign-in page's calls: exchange a key, or an email and password, for a session cookie, then hand the session to the shell.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import type { DecorateMutationProcedure, ResolverDef } from "@trpc/tanstack-react-query";
import { replaceSession, type Session, useTRPC } from "../lib/trpc";

/** A call that answers with the new session: the shell is handed it. */
function useSessionStart<TDef extends ResolverDef & { output: Session }>(procedure: DecorateMutationProcedure<TDef>, onSignedIn: () => void) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return useMutation(
    procedure.mutationOptions({
      onSuccess: async (me) => {
        onSignedIn();
        replaceSession(queryClient, trpc.session.me.queryKey(), me);
      },
    }),
  );
}

export const useSignIn = (onSignedIn: () => void) => useSessionStart(useTRPC().session.signIn, onSignedIn);

export const usePasswordSignIn = (onSignedIn: () => void) => useSessionStart(useTRPC().session.signInWithPassword, onSignedIn);
