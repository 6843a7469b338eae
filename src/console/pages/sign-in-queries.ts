// The sign-in page's calls: exchange a key, or an email and password, for a session cookie, then hand the session to the shell.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { replaceSession, useTRPC } from "../lib/trpc";

export function useSignIn(onSignedIn: () => void) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return useMutation(
    trpc.session.signIn.mutationOptions({
      onSuccess: async (me) => {
        onSignedIn();
        replaceSession(queryClient, trpc.session.me.queryKey(), me);
      },
    }),
  );
}

export function usePasswordSignIn(onSignedIn: () => void) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return useMutation(
    trpc.session.signInWithPassword.mutationOptions({
      onSuccess: async (me) => {
        onSignedIn();
        replaceSession(queryClient, trpc.session.me.queryKey(), me);
      },
    }),
  );
}
