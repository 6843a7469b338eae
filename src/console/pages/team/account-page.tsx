import { Button, Paper, PasswordInput, Stack, Table, Text, Title } from "@mantine/core";
import { When } from "../../components/when";
import { DataTable } from "../../components/data-table";
import { useForm } from "@mantine/form";
import { notifications } from "@mantine/notifications";
import { ErrorAlert } from "../../components/error-alert";
import { PageHeader } from "../../components/page-header";

import { useSession } from "../../lib/session";
import { useChangePassword, useMySessions, useRevokeSession } from "./queries";

function PasswordSection() {
  const form = useForm({
    mode: "controlled",
    initialValues: { currentPassword: "", newPassword: "" },
    // The server's rule, checked before sending (the server checks it again).
    validate: {
      currentPassword: (v) => (v ? null : "Enter your current password"),
      newPassword: (v) =>
        v.length < 12 ? "At least 12 characters" : new Set(v).size < 5 ? "At least 5 different characters" : v.length > 200 ? "At most 200 characters" : null,
    },
  });
  const change = useChangePassword(() => {
    form.reset();
    notifications.show({ message: "Password changed; your other sessions ended" });
  });
  return (
    <Paper withBorder p="md" maw={480}>
      <form onSubmit={form.onSubmit((v) => change.mutate(v))} aria-label="Change password">
        <Stack gap="sm">
          <Title order={3} size="h4">
            Password
          </Title>
          <PasswordInput label="Current password" autoComplete="current-password" {...form.getInputProps("currentPassword")} />
          <PasswordInput
            label="New password"
            description="At least 12 characters, at least 5 different ones. Your other sessions end."
            autoComplete="new-password"
            {...form.getInputProps("newPassword")}
            required
          />
          <ErrorAlert error={change.error} title="Could not change the password" />
          <Button type="submit" loading={change.isPending}>
            Change password
          </Button>
        </Stack>
      </form>
    </Paper>
  );
}

/** A person's own account: where they are signed in (and ending those sessions), and their password. */
export function AccountPage() {
  const session = useSession();
  const sessions = useMySessions();
  const revoke = useRevokeSession();
  if (!session.user) {
    return (
      <>
        <PageHeader title="My account" />
        <Text c="dimmed">This session signed in with an API key or the admin token, which has no account. People sign in with their email.</Text>
      </>
    );
  }
  return (
    <>
      <PageHeader title="My account" description={`${session.user.email} · ${session.orgRole} of ${session.organization?.name ?? ""}`} />
      <Stack gap="xl">
        <Stack gap="xs">
          <Title order={3} size="h4">
            Sessions
          </Title>
          <DataTable
            label="Sessions"
            columns={["Started", "Last seen", "From", "Browser", null]}
            query={sessions}
            error={revoke.error}
            row={(s) => (
              <Table.Tr key={s.id} data-testid="session-row">
                <Table.Td>
                  <When value={s.createdAt} />
                </Table.Td>
                <Table.Td>
                  <When value={s.lastSeenAt} />
                </Table.Td>
                <Table.Td>{s.address}</Table.Td>
                <Table.Td style={{ overflowWrap: "anywhere" }}>
                  <Text size="xs">{s.userAgent}</Text>
                </Table.Td>
                <Table.Td>
                  {s.current ? (
                    <Text size="xs" fw={600} style={{ whiteSpace: "nowrap" }}>
                      this session
                    </Text>
                  ) : (
                    <Button size="xs" variant="default" onClick={() => revoke.mutate({ id: s.id })}>
                      Sign out
                    </Button>
                  )}
                </Table.Td>
              </Table.Tr>
            )}
          />
        </Stack>
        <PasswordSection />
      </Stack>
    </>
  );
}
