import { Button, Center, Paper, PasswordInput, Stack, Text, Title } from "@mantine/core";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { ErrorAlert } from "../components/error-alert";
import { replaceSession, useTRPC } from "../lib/trpc";

/** Sign in with a project API key (or the admin token); the key goes to the server once and is never stored here. */
export function SignInPage({ ended = false }: { ended?: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [token, setToken] = useState("");
  const [showForm, setShowForm] = useState(!ended);
  const signIn = useMutation(
    trpc.session.signIn.mutationOptions({
      onSuccess: async (me) => {
        setToken("");
        replaceSession(queryClient, trpc.session.me.queryKey(), me);
      },
    }),
  );
  if (!showForm) {
    return (
      <Center mih="100vh" p="md">
        <Paper withBorder p="xl" radius="md" w={440}>
          <Stack>
            <Title order={2}>Your session has ended</Title>
            <Text c="dimmed">You were signed out, the session expired, or the API key it used was revoked. Nothing you saved is lost.</Text>
            <Button onClick={() => setShowForm(true)}>Sign in again</Button>
          </Stack>
        </Paper>
      </Center>
    );
  }
  return (
    <Center mih="100vh" p="md">
      <Paper
        withBorder
        p="xl"
        radius="md"
        w={440}
        component="form"
        onSubmit={(e) => {
          e.preventDefault();
          signIn.mutate({ token });
        }}
      >
        <Stack>
          <Title order={2}>Sign in to Hone</Title>
          <Text c="dimmed" size="sm">
            Use your own project API key (ask for a named one so it can be revoked alone). It is exchanged for a session cookie and never kept in the browser.
            Operators may use the admin token.
          </Text>
          <PasswordInput
            label="API key"
            placeholder="hone_sk_…"
            autoComplete="off"
            value={token}
            onChange={(e) => setToken(e.currentTarget.value)}
            required
            data-autofocus
          />
          <ErrorAlert error={signIn.error} title="Could not sign in" />
          <Button type="submit" loading={signIn.isPending}>
            Sign in
          </Button>
          <Text size="xs" c="dimmed">
            No key yet? Run <code>bun run hone keys create --project &lt;id&gt; --name &lt;you&gt;</code> on the server.
          </Text>
        </Stack>
      </Paper>
    </Center>
  );
}
