import { Button, Loader, PasswordInput, Stack, Text, TextInput } from "@mantine/core";
import { When } from "../../components/when";
import { AuthCard } from "../../components/auth-card";
import { useForm } from "@mantine/form";
import { useMutation, useQuery } from "@tanstack/react-query";
import { ErrorAlert } from "../../components/error-alert";

import { useTRPC } from "../../lib/trpc";

/**
 * An invitation link (/invite#hone_inv_…): what it offers, then a password (a new account, or the
 * existing account's), and the person is signed in. The token rides in the fragment, which the
 * browser never sends to a server.
 */
export function InvitePage() {
  const trpc = useTRPC();
  const token = decodeURIComponent(window.location.hash.slice(1));
  const invitation = useQuery({ ...trpc.session.invitation.queryOptions({ token }), retry: false, enabled: token.length > 0 });
  const form = useForm({ mode: "controlled", initialValues: { email: "", name: "", organizationName: "", password: "" } });
  const accept = useMutation(
    trpc.session.acceptInvitation.mutationOptions({
      // Signed in: the console starts again at its first page, with the new session.
      onSuccess: () => window.location.replace("/"),
    }),
  );
  const options = useQuery(trpc.session.options.queryOptions());
  const inv = invitation.data;
  return (
    <AuthCard title={inv?.firstOwner ? "Create the first owner" : "Join your team on Hone"}>
      {!token ? <Text c="dimmed">This page opens from an invitation link. Ask an owner or admin of your organisation for one.</Text> : null}
      {invitation.isPending && token ? <Loader aria-label="Loading" /> : null}
      <ErrorAlert error={invitation.error} title="This invitation cannot be used" />
      {inv ? (
        <form
          onSubmit={form.onSubmit((v) =>
            accept.mutate({
              token,
              password: v.password,
              ...(inv.firstOwner ? { email: v.email, organizationName: v.organizationName || undefined } : {}),
              ...(v.name ? { name: v.name } : {}),
            }),
          )}
        >
          <Stack gap="sm">
            <Text size="sm" data-testid="invitation-summary">
              {inv.firstOwner
                ? "No one has an account yet. This makes you the owner of a new organisation, which takes in the projects that exist."
                : `${inv.email} is invited to ${inv.organization ?? "an organisation"} as ${inv.role}.`}{" "}
              The link works once, until <When value={inv.expiresAt} />.
            </Text>
            {inv.firstOwner ? (
              <>
                <TextInput label="Email" type="email" autoComplete="username" {...form.getInputProps("email")} required />
                <TextInput label="Organisation name" placeholder="Default" {...form.getInputProps("organizationName")} />
              </>
            ) : null}
            {inv.existingUser ? null : <TextInput label="Your name" autoComplete="name" {...form.getInputProps("name")} />}
            <PasswordInput
              label={inv.existingUser ? "Your password" : "Choose a password"}
              description={inv.existingUser ? "You have an account: enter its password to join." : "At least 12 characters, at least 5 different ones."}
              autoComplete={inv.existingUser ? "current-password" : "new-password"}
              {...form.getInputProps("password")}
              required
            />
            <ErrorAlert error={accept.error} title="Could not accept" />
            <Button type="submit" loading={accept.isPending}>
              {inv.firstOwner ? "Create owner and sign in" : "Accept and sign in"}
            </Button>
            {options.data?.sso && !inv.firstOwner ? (
              <Button component="a" variant="outline" href={`/auth/oidc/start?invite=${encodeURIComponent(token)}`}>
                Accept with SSO instead
              </Button>
            ) : null}
          </Stack>
        </form>
      ) : null}
    </AuthCard>
  );
}
