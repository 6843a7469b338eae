import { Alert, Button, Code, Divider, PasswordInput, Stack, Text, TextInput } from "@mantine/core";
import { AuthCard } from "../components/auth-card";
import { useForm } from "@mantine/form";
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { ErrorAlert } from "../components/error-alert";
import { useTRPC } from "../lib/trpc";
import { usePasswordSignIn, useSignIn } from "./sign-in-queries";

/** Email and password: a person signs in as themselves. */
function PasswordForm() {
  const form = useForm({ mode: "controlled", initialValues: { email: "", password: "" } });
  const signIn = usePasswordSignIn(() => form.reset());
  return (
    <form onSubmit={form.onSubmit((v) => signIn.mutate(v))} aria-label="Sign in as yourself">
      <Stack gap="sm">
        <TextInput label="Email" type="email" autoComplete="username" {...form.getInputProps("email")} required data-autofocus />
        <PasswordInput label="Password" autoComplete="current-password" {...form.getInputProps("password")} required />
        <ErrorAlert error={signIn.error} title="Could not sign in" />
        <Button type="submit" loading={signIn.isPending}>
          Sign in with password
        </Button>
      </Stack>
    </form>
  );
}

/** A project API key (or the admin token): for single-person setups; HONE_CONSOLE_KEY_SIGNIN=false switches it off. */
function KeyForm() {
  const form = useForm({ mode: "controlled", initialValues: { token: "" } });
  const signIn = useSignIn(() => form.reset());
  return (
    <form onSubmit={form.onSubmit((v) => signIn.mutate({ token: v.token }))} aria-label="Key sign-in">
      <Stack gap="sm">
        <PasswordInput label="API key" placeholder="hone_sk_…" autoComplete="off" {...form.getInputProps("token")} required />
        <ErrorAlert error={signIn.error} title="Could not sign in" />
        <Button type="submit" variant="default" loading={signIn.isPending}>
          Sign in
        </Button>
        <Stack gap={4} data-testid="sign-in-help">
          <Text size="sm" fw={600}>
            No key yet?
          </Text>
          <Text size="xs" c="dimmed">
            On a first start Hone prints the key of its <Code>default</Code> project once (named <Code>bootstrap</Code>). Sign in with it, then give each person
            a named key of their own under Settings → API keys, where keys can also be renamed and revoked.
          </Text>
          <Text size="xs" c="dimmed">
            The command line on the server creates one too, while Hone runs: <Code>bun run hone keys create --project &lt;id&gt; --name &lt;you&gt;</Code>
          </Text>
        </Stack>
      </Stack>
    </form>
  );
}

const SSO_ERRORS: Record<string, string> = {
  state: "The sign-in did not come back to the browser that started it (or took too long). Try again.",
  domain: "Your email's domain is not allowed to sign in here (this Hone's allowed domains).",
  disabled: "Your account is disabled: ask an owner of your organisation.",
  provider: "The identity provider refused the sign-in or could not be reached.",
  unverified: "The identity provider did not vouch for your email address.",
  "linked-elsewhere":
    "Your Hone account is already linked to another identity at the identity provider, and that link does not change by itself. Sign in with your password; an owner can remove the other link (Members → Remove SSO link), and your next single sign-on links this identity.",
  "link-unverified":
    "A Hone account with your email exists, and the identity provider did not confirm that the email is verified, so single sign-on cannot link it. Sign in with your password instead.",
  nonce: "The identity provider's answer did not match this sign-in (its nonce). Try again.",
  "no-organization": "No organisation exists yet: the first owner must be created before anyone signs in by single sign-on.",
};

/** Sign in: as yourself (password, single sign-on), or with a project API key where allowed. */
export function SignInPage({ ended = false }: { ended?: boolean }) {
  const trpc = useTRPC();
  const options = useQuery(trpc.session.options.queryOptions());
  const [showForm, setShowForm] = useState(!ended);
  const ssoError = new URLSearchParams(window.location.search).get("sso_error");
  if (!showForm) {
    return (
      <AuthCard title="Your session has ended" width={440}>
        <Text c="dimmed">You were signed out, the session expired, your access changed, or the API key it used was revoked. Nothing you saved is lost.</Text>
        <Button onClick={() => setShowForm(true)}>Sign in again</Button>
      </AuthCard>
    );
  }
  const o = options.data;
  return (
    <AuthCard title="Sign in to Hone">
      {o?.needsFirstOwner ? (
        <Alert color="blue" title="No one has an account yet" data-testid="first-owner-hint">
          Open the first-owner link Hone printed when it started (<Code>…/invite#hone_inv_…</Code>) to create the first owner. Each start prints a new one until
          it is used.
        </Alert>
      ) : null}
      {ssoError ? (
        <Alert color="red" title="Single sign-on failed" data-testid="sso-error">
          {SSO_ERRORS[ssoError] ?? "The sign-in could not be completed."}
        </Alert>
      ) : null}
      <PasswordForm />
      {o?.sso ? (
        <Button component="a" href="/auth/oidc/start" variant="outline">
          Sign in with SSO
        </Button>
      ) : null}
      {o?.keySignIn !== false ? (
        <>
          <Divider label="or with a project API key" labelPosition="center" />
          <KeyForm />
        </>
      ) : null}
      <Text size="xs" c="dimmed">
        Invited? Open the link you were given; it signs you in.
      </Text>
    </AuthCard>
  );
}
