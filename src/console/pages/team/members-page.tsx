import { Badge, Button, Checkbox, Group, Modal, Paper, Select, Stack, Table, Text, TextInput, Title, VisuallyHidden } from "@mantine/core";
import { When } from "../../components/when";
import { RowActions, RowButton } from "../../components/row-actions";
import { ACTIONS, DataTable } from "../../components/data-table";
import { useForm } from "@mantine/form";
import { notifications } from "@mantine/notifications";
import { useState } from "react";
import { ConfirmDelete } from "../../components/confirm-delete";
import { CopyButton } from "../../components/copy-button";
import { ErrorAlert } from "../../components/error-alert";
import { PageHeader } from "../../components/page-header";
import { formatTime } from "../../lib/format";
import { useCan, useSession } from "../../lib/session";
import { errorMessageOf } from "../../lib/trpc";
import {
  type Member,
  useClearProjectRole,
  useInvitations,
  useInvite,
  useMemberKeys,
  useMembers,
  useOrgProjects,
  useRemoveMember,
  useRevokeInvitation,
  useUnlinkSso,
  useUpdateRole,
} from "./queries";

const ROLE_OPTIONS = [
  { value: "viewer", label: "Viewer: reads everything" },
  { value: "member", label: "Member: reads and changes data" },
  { value: "admin", label: "Admin: also keys, providers, routes, limits" },
  { value: "owner", label: "Owner: also members" },
];

function InviteForm({ canInviteOwner }: { canInviteOwner: boolean }) {
  const form = useForm({ mode: "controlled", initialValues: { email: "", role: "member" } });
  const invite = useInvite();
  const [link, setLink] = useState<{ url: string; email: string; emailed: boolean } | null>(null);
  return (
    <Paper withBorder p="md">
      <form
        onSubmit={form.onSubmit((v) =>
          invite.mutate(
            { email: v.email, role: v.role as Member["role"] },
            {
              onSuccess: (created) => {
                setLink({ url: created.url, email: v.email, emailed: created.emailed });
                form.reset();
              },
            },
          ),
        )}
        aria-label="Invite someone"
      >
        <Group align="flex-end" wrap="wrap">
          <TextInput label="Email" type="email" w={260} {...form.getInputProps("email")} required />
          <Select
            label="Role"
            w={300}
            data={ROLE_OPTIONS.filter((o) => canInviteOwner || o.value !== "owner")}
            allowDeselect={false}
            {...form.getInputProps("role")}
          />
          <Button type="submit" loading={invite.isPending}>
            Invite
          </Button>
        </Group>
      </form>
      <ErrorAlert error={invite.error} title="Could not invite" />
      {link ? (
        <Stack gap={4} mt="sm" data-testid="invitation-link">
          <Text size="sm">
            {link.emailed ? `Sent to ${link.email}. ` : ""}The link for {link.email}, single use, valid 7 days (shown only now):
          </Text>
          <Group gap="xs" wrap="nowrap">
            <Text ff="monospace" size="xs" style={{ wordBreak: "break-all" }}>
              {link.url}
            </Text>
            <CopyButton value={link.url} label="Copy link" />
          </Group>
        </Stack>
      ) : null}
    </Paper>
  );
}

const RANKS = ["viewer", "member", "admin", "owner"] as const;

/** An owner narrows a member's role in some projects (never above the organisation role). */
function ProjectRolesModal({ member, onClose }: { member: Member; onClose: () => void }) {
  const projects = useOrgProjects();
  const updateRole = useUpdateRole();
  const clear = useClearProjectRole();
  const error = updateRole.error ?? clear.error;
  const below = RANKS.slice(0, RANKS.indexOf(member.role) + 1);
  return (
    <Modal opened onClose={onClose} title={`${member.email} per project`} closeButtonProps={{ "aria-label": "Close" }}>
      <Stack gap="sm">
        <Text size="sm" c="dimmed">
          {member.email} is {member.role} in the organisation. A project may give them less.
        </Text>
        {(projects.data ?? []).map((p) => {
          const narrowed = member.projectRoles.find((r) => r.projectId === p.id)?.role ?? "";
          return (
            <Group key={p.id} justify="space-between" wrap="nowrap">
              <Text size="sm">{p.name}</Text>
              <Select
                aria-label={`Role of ${member.email} in ${p.name}`}
                size="xs"
                w={200}
                data={[{ value: "", label: `${member.role} (organisation)` }, ...below.map((r) => ({ value: r, label: r }))]}
                value={narrowed}
                allowDeselect={false}
                onChange={(role) =>
                  role
                    ? updateRole.mutate({ userId: member.userId, role: role as Member["role"], projectId: p.id })
                    : clear.mutate({ userId: member.userId, projectId: p.id })
                }
              />
            </Group>
          );
        })}
        <ErrorAlert error={error} title="Could not change the role" />
      </Stack>
    </Modal>
  );
}

/**
 * Removing a member: the API keys they made for themselves stop with them, so the owner sees them
 * first and may hand them to their projects (service keys) in the same change.
 */
function RemoveMemberModal({ member, onClose }: { member: Member; onClose: () => void }) {
  const keys = useMemberKeys(member.userId);
  const remove = useRemoveMember();
  const [handOver, setHandOver] = useState(false);
  const list = keys.data ?? [];
  return (
    <ConfirmDelete
      title={`Remove ${member.email}?`}
      confirmLabel="Remove member"
      onClose={onClose}
      onConfirm={() => remove.mutate({ userId: member.userId, keys: handOver ? "project" : "stop" }, { onSuccess: onClose })}
      mutation={remove}
      errorTitle="Could not remove"
      disabled={keys.isPending}
    >
      <Text size="sm">They lose access to every project of the organisation at once; their sessions here end.</Text>
      <ErrorAlert error={keys.error} />
      {keys.isPending ? (
        <Text size="sm" c="dimmed">
          Looking for their API keys…
        </Text>
      ) : list.length ? (
        <Stack gap="xs">
          <Text size="sm">
            {list.length === 1 ? "This API key of theirs stops working" : `These ${list.length} API keys of theirs stop working`} with the removal:
          </Text>
          <Table aria-label="API keys that stop">
            <Table.Tbody>
              {list.map((k) => (
                <Table.Tr key={k.id}>
                  <Table.Td>{k.name ?? "unnamed"}</Table.Td>
                  <Table.Td>
                    <Text size="xs" ff="monospace">
                      {k.prefix}
                    </Text>
                  </Table.Td>
                  <Table.Td>{k.projectName}</Table.Td>
                  <Table.Td>{k.lastUsedAt ? `used ${formatTime(k.lastUsedAt)}` : "never used"}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
          <Checkbox
            checked={handOver}
            onChange={(e) => setHandOver(e.currentTarget.checked)}
            label="Hand them to their projects instead: they keep working as service keys"
          />
        </Stack>
      ) : (
        <Text size="sm" c="dimmed">
          They have no API keys of their own.
        </Text>
      )}
    </ConfirmDelete>
  );
}

/** The organisation's members: owners change roles and remove; owners and admins invite. */
/** What a role may do, in a line (said when a role is changed). */
const ROLE_MEANS: Record<Member["role"], string> = {
  viewer: "they may read everything and change nothing.",
  member: "they may call models and change data (datasets, criteria, evaluations, fine-tunes).",
  admin: "they may also manage keys, providers, routes, limits, prices and invitations.",
  owner: "they may also manage members, their roles and projects.",
};

export function MembersPage() {
  const session = useSession();
  const isOwner = useCan("owner");
  const isAdmin = useCan("admin");
  const members = useMembers();
  const invitations = useInvitations(isAdmin && !!session.user);
  const updateRole = useUpdateRole();
  const revoke = useRevokeInvitation();
  const unlinkSso = useUnlinkSso();
  const [narrowing, setNarrowing] = useState<string | null>(null);
  const onError = (title: string) => (err: unknown) => notifications.show({ color: "red", title, message: errorMessageOf(err) });
  const [removing, setRemoving] = useState<Member | null>(null);
  const [unlinking, setUnlinking] = useState<Member | null>(null);
  const [changingRole, setChangingRole] = useState<{ member: Member; role: Member["role"] } | null>(null);
  const open = (invitations.data ?? []).filter((i) => !i.acceptedAt && !i.revokedAt && new Date(i.expiresAt) > new Date());
  return (
    <>
      <PageHeader title="Members" description={`The people of ${session.organization?.name ?? "this organisation"} and their roles.`} />
      {removing ? <RemoveMemberModal member={removing} onClose={() => setRemoving(null)} /> : null}
      <ConfirmDelete
        target={unlinking}
        title={`Remove ${unlinking?.email}'s single sign-on link?`}
        confirmLabel="Remove SSO link"
        onClose={() => setUnlinking(null)}
        onConfirm={(t) => unlinkSso.mutate({ userId: t.userId }, { onSuccess: () => setUnlinking(null) })}
        mutation={unlinkSso}
        errorTitle="Could not remove the SSO link"
      >
        <Text size="sm">Their account stops answering to its identity at the provider. Their next single sign-on, with a verified email, links again.</Text>
      </ConfirmDelete>
      <Stack gap="lg">
        {isAdmin && session.user ? <InviteForm canInviteOwner={isOwner} /> : null}
        <DataTable
          label="Members"
          striped
          columns={["Email", "Name", "Role", { label: "Joined", visibleFrom: "md" }, ACTIONS]}
          query={members}
          row={(m) => (
            <Table.Tr key={m.userId} data-testid={`member-${m.email}`}>
              <Table.Td>
                {m.email} {m.sso ? <Badge size="xs">SSO</Badge> : null}{" "}
                {m.disabled ? (
                  <Badge size="xs" color="red">
                    disabled
                  </Badge>
                ) : null}
              </Table.Td>
              <Table.Td>{m.name ?? ""}</Table.Td>
              <Table.Td>
                {isOwner ? (
                  <Select
                    aria-label={`Role of ${m.email}`}
                    size="xs"
                    w={130}
                    data={["viewer", "member", "admin", "owner"]}
                    value={m.role}
                    allowDeselect={false}
                    // A role change is asked first: it changes what the person may do at once.
                    onChange={(role) => role && role !== m.role && setChangingRole({ member: m, role: role as Member["role"] })}
                  />
                ) : (
                  <Badge variant="light">{m.role}</Badge>
                )}
                {m.projectRoles.length ? (
                  <Text size="xs" c="dimmed">
                    narrowed in {m.projectRoles.length} project{m.projectRoles.length > 1 ? "s" : ""}
                  </Text>
                ) : null}
              </Table.Td>
              <Table.Td visibleFrom="md">
                <When value={m.joinedAt} />
              </Table.Td>
              <Table.Td>
                {isOwner && m.userId !== session.user?.id ? (
                  <RowActions deleteLabel={`Remove ${m.email}`} onDelete={() => setRemoving(m)} deleteText="Remove">
                    <RowButton label={`Roles of ${m.email} per project`} onClick={() => setNarrowing(m.userId)}>
                      Per project
                    </RowButton>
                    {m.sso ? (
                      <RowButton label={`Remove the SSO link of ${m.email}`} onClick={() => setUnlinking(m)}>
                        Remove SSO link
                      </RowButton>
                    ) : null}
                  </RowActions>
                ) : null}
              </Table.Td>
            </Table.Tr>
          )}
        />
        {isAdmin && open.length ? (
          <Stack gap="xs">
            <Title order={3} size="h4">
              Open invitations
            </Title>
            <Table aria-label="Open invitations">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Email</Table.Th>
                  <Table.Th>Role</Table.Th>
                  <Table.Th>Expires</Table.Th>
                  <Table.Th>
                    <VisuallyHidden>Actions</VisuallyHidden>
                  </Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {open.map((i) => (
                  <Table.Tr key={i.id}>
                    <Table.Td>{i.email}</Table.Td>
                    <Table.Td>{i.role}</Table.Td>
                    <Table.Td>
                      expires <When value={i.expiresAt} />
                    </Table.Td>
                    <Table.Td>
                      <Button size="xs" variant="default" onClick={() => revoke.mutate({ id: i.id }, { onError: onError("Could not revoke") })}>
                        Revoke
                      </Button>
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Stack>
        ) : null}
      </Stack>
      <ConfirmDelete
        target={changingRole}
        title={
          changingRole
            ? `Make ${changingRole.member.email} ${changingRole.role === "admin" || changingRole.role === "owner" ? "an" : "a"} ${changingRole.role}?`
            : ""
        }
        confirmLabel="Change the role"
        onClose={() => {
          setChangingRole(null);
          updateRole.reset();
        }}
        onConfirm={(c) => updateRole.mutate({ userId: c.member.userId, role: c.role }, { onSuccess: () => setChangingRole(null) })}
        mutation={updateRole}
      >
        <Text size="sm" data-testid="role-change-summary">
          {changingRole
            ? `${changingRole.member.email} goes from ${changingRole.member.role} to ${changingRole.role} in the organisation, at once: ${ROLE_MEANS[changingRole.role]}`
            : null}
        </Text>
      </ConfirmDelete>
      {narrowing && members.data?.some((m) => m.userId === narrowing) ? (
        <ProjectRolesModal member={members.data.find((m) => m.userId === narrowing)!} onClose={() => setNarrowing(null)} />
      ) : null}
    </>
  );
}
