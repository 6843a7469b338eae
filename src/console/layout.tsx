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
import { useDisclosure, useMediaQuery } from "@mantine/hooks";
import { Link, Outlet, useRouterState } from "@tanstack/react-router";
import { useState } from "react";
import { CopyButton } from "./components/copy-button";
import { ErrorAlert } from "./components/error-alert";
import { StackForm } from "./components/inline-form";
import { useOrganizations, useProjects, useSignOut } from "./lib/layout-queries";
import { canAct } from "./lib/session";
import type { Session } from "./lib/trpc";

export const SECTIONS = [
  { to: "/logs", label: "Logs" },
  { to: "/traces", label: "Traces" },
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

/** Below this width the navigation is a drawer, and the header's actions (the switchers, the theme, Sign out) move into it. */
const DRAWER_QUERY = "(max-width: 61.99em)";

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
        <StackForm onSubmit={() => create.mutate({ name })}>
          <TextInput label="Project name" value={name} onChange={(e) => setName(e.currentTarget.value)} required data-autofocus />
          <ErrorAlert error={create.error} />
          <Button type="submit" loading={create.isPending}>
            Create project
          </Button>
        </StackForm>
      )}
    </Modal>
  );
}

/**
 * The project the session acts on, to pick (a person's organisation's projects; every project for
 * the admin), and "New project" for those who may create one (its first key is shown once).
 */
function ProjectSwitcher({ session, width, canCreate }: { session: Session; width: number; canCreate: boolean }) {
  const { projects, switchTo, create, createdKey, forgetCreatedKey } = useProjects(session);
  const [creating, { open, close }] = useDisclosure(false);
  return (
    <>
      <Select
        label="Project"
        size="xs"
        w={width}
        data={projects.map((p) => ({ value: p.id, label: p.name }))}
        value={session.project?.id ?? null}
        onChange={(id) => id && switchTo(id)}
        placeholder="Choose a project"
        allowDeselect={false}
        comboboxProps={{ withinPortal: true }}
      />
      {canCreate ? (
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
          forgetCreatedKey();
        }}
      />
    </>
  );
}

/** A person picks their organisation when in several (else it is named), then the project. */
function OrganizationSwitcher({ session }: { session: Session }) {
  const { organizations, switchTo } = useOrganizations();
  return organizations.length > 1 ? (
    <Select
      label="Organisation"
      size="xs"
      w={170}
      data={organizations.map((o) => ({ value: o.id, label: o.name }))}
      value={session.organization?.id ?? null}
      onChange={(id) => id && switchTo(id)}
      allowDeselect={false}
      comboboxProps={{ withinPortal: true }}
    />
  ) : (
    <Text fw={600} size="sm" visibleFrom="sm" data-testid="organization-name">
      {session.organization?.name}
    </Text>
  );
}

// Pages about the organisation and the person, shown with no project selected too.
const TEAM_SECTIONS = [
  { to: "/members", label: "Members", least: "viewer" },
  { to: "/audit", label: "Audit log", least: "admin" },
  { to: "/account", label: "My account", least: "viewer" },
] as const;

/** Who is signed in: the person and their role, or the key (or the admin token). */
function WhoBadge({ session }: { session: Session }) {
  return session.user ? (
    <Badge variant="light" size="lg" data-testid="user-badge" tt="none" title={session.user.email} maw="100%">
      {session.user.name ?? session.user.email} · {session.role ?? session.orgRole}
    </Badge>
  ) : (
    <Badge variant="light" size="lg" data-testid="key-name" tt="none" maw="100%">
      {session.admin ? "admin" : (session.key?.name ?? session.key?.prefix ?? "API key")}
    </Badge>
  );
}

/** The organisation and project to act on: switchers for a person or the admin, the project's name for a key. */
function ScopeControls({ session, width }: { session: Session; width: number }) {
  if (session.user)
    return (
      <>
        <OrganizationSwitcher session={session} />
        <ProjectSwitcher session={session} width={width} canCreate={session.orgRole === "owner"} />
      </>
    );
  if (session.admin) return <ProjectSwitcher session={session} width={width + 20} canCreate />;
  return (
    <Text fw={600} data-testid="project-name" truncate="end">
      {session.project?.name}
    </Text>
  );
}

export function AppLayout({ session }: { session: Session }) {
  const [opened, { toggle, close }] = useDisclosure();
  const pathname = useRouterState({ select: (s) => s.location.pathname });
  const signOut = useSignOut();
  // In a narrow window the header keeps the menu, the name and the project's; the rest is in the drawer.
  const drawer = useMediaQuery(DRAWER_QUERY) ?? false;
  const signOutButton = (
    <Button variant="default" size="sm" onClick={() => signOut.mutate()} loading={signOut.isPending}>
      Sign out
    </Button>
  );
  return (
    <AppShell header={{ height: 64 }} navbar={{ width: 210, breakpoint: "md", collapsed: { mobile: !opened } }} padding="md">
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group gap="sm" wrap="nowrap" style={{ minWidth: 0 }}>
            <Burger opened={opened} onClick={toggle} hiddenFrom="md" size="sm" aria-label="Toggle navigation" />
            <Title order={3}>Hone</Title>
            {drawer ? (
              <Text fw={600} size="sm" truncate="end" data-testid="header-project">
                {session.project?.name}
              </Text>
            ) : (
              <Group gap="xs" wrap="nowrap">
                <ScopeControls session={session} width={180} />
              </Group>
            )}
          </Group>
          {drawer ? null : (
            <Group gap="sm" wrap="nowrap">
              <WhoBadge session={session} />
              <ThemeToggle />
              {signOutButton}
            </Group>
          )}
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs" component="nav" aria-label="Sections" style={{ overflowY: "auto" }}>
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
        {drawer ? (
          <Stack gap="xs" mt="xs" pt="xs" style={{ borderTop: "1px solid var(--app-shell-border-color)" }} data-testid="drawer-account">
            <Group gap="xs" align="flex-end" wrap="wrap">
              <ScopeControls session={session} width={180} />
            </Group>
            <Group gap="xs" wrap="nowrap">
              <WhoBadge session={session} />
              <ThemeToggle />
              {signOutButton}
            </Group>
          </Stack>
        ) : null}
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
