import {
  ActionIcon,
  AppShell,
  Badge,
  Burger,
  Button,
  Group,
  Modal,
  NavLink,
  Select,
  Stack,
  Text,
  TextInput,
  Title,
  Tooltip,
  useMantineColorScheme,
} from "@mantine/core";
import { useDisclosure } from "@mantine/hooks";
import { notifications } from "@mantine/notifications";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Link, Outlet, useRouterState } from "@tanstack/react-router";
import { useState } from "react";
import { CopyButton } from "./components/copy-button";
import { ErrorAlert } from "./components/error-alert";
import { canAct } from "./lib/session";
import { replaceSession, type Session, useTRPC } from "./lib/trpc";

export const SECTIONS = [
  { to: "/logs", label: "Logs" },
  { to: "/usage", label: "Usage" },
  { to: "/limits", label: "Limits" },
  { to: "/datasets", label: "Datasets" },
  { to: "/monitors", label: "Monitors" },
  { to: "/models", label: "Models" },
  { to: "/routes", label: "Routes" },
  { to: "/criteria", label: "Criteria" },
  { to: "/evaluations", label: "Evaluations" },
  { to: "/playground", label: "Playground" },
  { to: "/settings", label: "Settings" },
] as const;

function ThemeToggle() {
  const { colorScheme, toggleColorScheme } = useMantineColorScheme();
  return (
    <Tooltip label={colorScheme === "dark" ? "Light theme" : "Dark theme"}>
      <ActionIcon variant="default" size="lg" onClick={toggleColorScheme} aria-label="Toggle color scheme">
        {colorScheme === "dark" ? "☀" : "☾"}
      </ActionIcon>
    </Tooltip>
  );
}

/** "New project": a name, then the project's first API key, shown once. */
function NewProjectModal({
  opened,
  createdKey,
  create,
  onClose,
}: {
  opened: boolean;
  createdKey: string | null;
  create: { mutate(input: { name: string }): void; error: unknown; isPending: boolean };
  onClose: () => void;
}) {
  const [name, setName] = useState("");
  return (
    <Modal
      opened={opened}
      onClose={() => {
        onClose();
        setName("");
      }}
      title="New project"
    >
      {createdKey ? (
        <Stack>
          <Text size="sm">The project was created and selected. Its first API key, shown only this once:</Text>
          <Group gap="xs" wrap="nowrap">
            <Text ff="monospace" size="sm" style={{ wordBreak: "break-all" }} data-testid="new-project-key">
              {createdKey}
            </Text>
            <CopyButton value={createdKey} label="Copy key" />
          </Group>
        </Stack>
      ) : (
        <Stack
          component="form"
          onSubmit={(e) => {
            e.preventDefault();
            create.mutate({ name });
          }}
        >
          <TextInput label="Project name" value={name} onChange={(e) => setName(e.currentTarget.value)} required data-autofocus />
          <ErrorAlert error={create.error} />
          <Button type="submit" loading={create.isPending}>
            Create project
          </Button>
        </Stack>
      )}
    </Modal>
  );
}

/** Admins pick the project they act on, and may create one (its first key is shown once). */
function ProjectSwitcher({ session }: { session: Session }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const projects = useQuery(trpc.admin.listProjects.queryOptions());
  const [creating, { open, close }] = useDisclosure(false);
  const [createdKey, setCreatedKey] = useState<string | null>(null);
  const switchProject = useMutation(
    trpc.session.switchProject.mutationOptions({
      onSuccess: (me) => {
        replaceSession(queryClient, trpc.session.me.queryKey(), me);
      },
    }),
  );
  const create = useMutation(
    trpc.admin.createProject.mutationOptions({
      onSuccess: async (created) => {
        setCreatedKey(created.apiKey);
        await queryClient.invalidateQueries({ queryKey: trpc.admin.listProjects.queryKey() });
        switchProject.mutate({ projectId: created.projectId });
      },
    }),
  );
  return (
    <Group gap="xs">
      <Select
        label="Project"
        size="xs"
        w={200}
        data={(projects.data ?? []).map((p) => ({ value: p.id, label: p.name }))}
        value={session.project?.id ?? null}
        onChange={(id) => id && switchProject.mutate({ projectId: id })}
        placeholder="Choose a project"
        allowDeselect={false}
        comboboxProps={{ withinPortal: true }}
      />
      <Button size="xs" variant="default" mt={22} onClick={open}>
        New project
      </Button>
      <NewProjectModal
        opened={creating}
        createdKey={createdKey}
        create={create}
        onClose={() => {
          close();
          setCreatedKey(null);
        }}
      />
    </Group>
  );
}

/** A person picks their organisation (when in several) and the project they act on; owners make projects. */
function PersonSwitcher({ session }: { session: Session }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const organizations = useQuery(trpc.session.organizations.queryOptions());
  const projects = useQuery(trpc.team.projects.queryOptions());
  const [creating, { open, close }] = useDisclosure(false);
  const [createdKey, setCreatedKey] = useState<string | null>(null);
  const refreshMe = async () => {
    await queryClient.invalidateQueries();
  };
  const switchProject = useMutation(
    trpc.session.switchProject.mutationOptions({ onSuccess: (me) => replaceSession(queryClient, trpc.session.me.queryKey(), me) }),
  );
  const switchOrganization = useMutation(trpc.session.switchOrganization.mutationOptions({ onSuccess: refreshMe }));
  const create = useMutation(
    trpc.team.createProject.mutationOptions({
      onSuccess: async (created) => {
        setCreatedKey(created.apiKey);
        await queryClient.invalidateQueries({ queryKey: trpc.team.projects.queryKey() });
        switchProject.mutate({ projectId: created.projectId });
      },
    }),
  );
  const orgs = organizations.data ?? [];
  return (
    <Group gap="xs" wrap="nowrap">
      {orgs.length > 1 ? (
        <Select
          label="Organisation"
          size="xs"
          w={170}
          data={orgs.map((o) => ({ value: o.id, label: o.name }))}
          value={session.organization?.id ?? null}
          onChange={(id) => id && switchOrganization.mutate({ organizationId: id })}
          allowDeselect={false}
          comboboxProps={{ withinPortal: true }}
        />
      ) : (
        <Text fw={600} size="sm" visibleFrom="sm" data-testid="organization-name">
          {session.organization?.name}
        </Text>
      )}
      <Select
        label="Project"
        size="xs"
        w={180}
        data={(projects.data ?? []).map((p) => ({ value: p.id, label: p.name }))}
        value={session.project?.id ?? null}
        onChange={(id) => id && switchProject.mutate({ projectId: id })}
        placeholder="Choose a project"
        allowDeselect={false}
        comboboxProps={{ withinPortal: true }}
      />
      {session.orgRole === "owner" ? (
        <Button size="xs" variant="default" mt={22} onClick={open}>
          New project
        </Button>
      ) : null}
      <NewProjectModal
        opened={creating}
        createdKey={createdKey}
        create={create}
        onClose={() => {
          close();
          setCreatedKey(null);
        }}
      />
    </Group>
  );
}

// Pages about the organisation and the person, shown with no project selected too.
const TEAM_SECTIONS = [
  { to: "/members", label: "Members", least: "viewer" },
  { to: "/audit", label: "Audit log", least: "admin" },
  { to: "/account", label: "My account", least: "viewer" },
] as const;

export function AppLayout({ session }: { session: Session }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [opened, { toggle, close }] = useDisclosure();
  const pathname = useRouterState({ select: (s) => s.location.pathname });
  const signOut = useMutation(
    trpc.session.signOut.mutationOptions({
      onSettled: () => {
        replaceSession(queryClient, trpc.session.me.queryKey(), null);
        notifications.show({ message: "Signed out" });
      },
    }),
  );
  return (
    <AppShell header={{ height: 64 }} navbar={{ width: 210, breakpoint: "md", collapsed: { mobile: !opened } }} padding="md">
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group gap="sm" wrap="nowrap">
            <Burger opened={opened} onClick={toggle} hiddenFrom="md" size="sm" aria-label="Toggle navigation" />
            <Title order={3}>Hone</Title>
            {session.user ? (
              <PersonSwitcher session={session} />
            ) : session.admin ? (
              <ProjectSwitcher session={session} />
            ) : (
              <Text fw={600} data-testid="project-name">
                {session.project?.name}
              </Text>
            )}
          </Group>
          <Group gap="sm" wrap="nowrap">
            {session.user ? (
              <Badge variant="light" size="lg" data-testid="user-badge" tt="none" title={session.user.email}>
                {session.user.name ?? session.user.email} · {session.role ?? session.orgRole}
              </Badge>
            ) : (
              <Badge variant="light" size="lg" data-testid="key-name" tt="none">
                {session.admin ? "admin" : (session.key?.name ?? session.key?.prefix ?? "API key")}
              </Badge>
            )}
            <ThemeToggle />
            <Button variant="default" size="sm" onClick={() => signOut.mutate()} loading={signOut.isPending}>
              Sign out
            </Button>
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs" component="nav" aria-label="Sections">
        {SECTIONS.map((s) => (
          <NavLink
            key={s.to}
            component={Link}
            to={s.to}
            label={s.label}
            active={pathname === s.to || pathname.startsWith(`${s.to}/`)}
            // Below the breakpoint the menu covers the page: choosing a section closes it.
            onClick={close}
          />
        ))}
        {session.user
          ? TEAM_SECTIONS.filter((s) => canAct(session, s.least)).map((s) => (
              <NavLink key={s.to} component={Link} to={s.to} label={s.label} active={pathname === s.to} onClick={close} />
            ))
          : null}
      </AppShell.Navbar>
      <AppShell.Main>
        {session.project || TEAM_SECTIONS.some((s) => pathname === s.to) ? (
          <Outlet />
        ) : (
          <Stack maw={520}>
            <Title order={2}>No project selected</Title>
            <Text c="dimmed">
              {session.user && session.orgRole !== "owner"
                ? "Your organisation has no project yet: ask an owner to create one."
                : 'Create a project with "New project" above, or choose one.'}
            </Text>
          </Stack>
        )}
      </AppShell.Main>
    </AppShell>
  );
}
