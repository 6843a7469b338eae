import { Button, Center, Code, Paper, PasswordInput, Stack, Text, Title } from "@mantine/core";
import { useForm } from "@mantine/form";
import { useState } from "react";
import { ErrorAlert } from "../components/error-alert";
import { useSignIn } from "./sign-in-queries";

/** Sign in with a project API key (or the admin token); the key goes to the server once and is never stored here. */
export function SignInPage({ ended = false }: { ended?: boolean }) {
  const form = useForm({ mode: "controlled", initialValues: { token: "" } });
  const [showForm, setShowForm] = useState(!ended);
  const signIn = useSignIn(() => form.reset());
  if (!showForm) {
    return (
      <Center mih="100vh" p="md" component="main">
        <Paper withBorder p="xl" radius="md" w={440} maw="100%">
          <Stack>
            <Title order={1} size="h2">
              Your session has ended
            </Title>
            <Text c="dimmed">You were signed out, the session expired, or the API key it used was revoked. Nothing you saved is lost.</Text>
            <Button onClick={() => setShowForm(true)}>Sign in again</Button>
          </Stack>
        </Paper>
      </Center>
    );
  }
  return (
    <Center mih="100vh" p="md" component="main">
      <Paper withBorder p="xl" radius="md" w={480} maw="100%">
        <form onSubmit={form.onSubmit((v) => signIn.mutate({ token: v.token }))}>
          <Stack>
            <Title order={1} size="h2">
              Sign in to Hone
            </Title>
            <Text c="dimmed" size="sm">
              Use your own project API key. It is exchanged for a session cookie and never kept in the browser. Operators may use the admin token.
            </Text>
            <PasswordInput label="API key" placeholder="hone_sk_…" autoComplete="off" {...form.getInputProps("token")} required data-autofocus />
            <ErrorAlert error={signIn.error} title="Could not sign in" />
            <Button type="submit" loading={signIn.isPending}>
              Sign in
            </Button>
            <Stack gap={4} data-testid="sign-in-help">
              <Text size="sm" fw={600}>
                No key yet?
              </Text>
              <Text size="xs" c="dimmed">
                On a first start Hone prints the key of its <Code>default</Code> project once (named <Code>bootstrap</Code>). Sign in with it, then give each
                person a named key of their own under Settings → API keys, where keys can also be renamed and revoked.
              </Text>
              <Text size="xs" c="dimmed">
                The command line on the server creates one too, while Hone runs: <Code>bun run hone keys create --project &lt;id&gt; --name &lt;you&gt;</Code>
              </Text>
            </Stack>
          </Stack>
        </form>
      </Paper>
    </Center>
  );
}
