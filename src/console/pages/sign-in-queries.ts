// The sign-in page's one call: exchange a key for a session cookie, then hand the session to the shell.
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
