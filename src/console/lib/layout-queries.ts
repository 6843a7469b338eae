// The console shell's data: the session's projects and organisations, switching between them,
// creating a project, and signing out. layout.tsx only lays them out.
import { notifications } from "@mantine/notifications";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { replaceSession, type Session, useTRPC } from "./trpc";

/** Signs out: the session is forgotten whatever the server answers. */
export function useSignOut() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return useMutation(
    trpc.session.signOut.mutationOptions({
      onSettled: () => {
        replaceSession(queryClient, trpc.session.me.queryKey(), null);
        notifications.show({ message: "Signed out" });
      },
    }),
  );
}

/**
 * The projects the session may act on (a person's organisation's, or every project for the admin),
 * switching to one, and creating one: it is switched to, and its first key kept to be shown once.
 */
export function useProjects(session: Session) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const person = Boolean(session.user);
  const teamProjects = useQuery(trpc.team.projects.queryOptions(undefined, { enabled: person }));
  const adminProjects = useQuery(trpc.admin.listProjects.queryOptions(undefined, { enabled: !person }));
  const projects = person ? teamProjects : adminProjects;
  const [createdKey, setCreatedKey] = useState<string | null>(null);
  const switchProject = useMutation(
    trpc.session.switchProject.mutationOptions({ onSuccess: (me) => replaceSession(queryClient, trpc.session.me.queryKey(), me) }),
  );
  const onCreated = async (created: { apiKey: string; projectId: string }) => {
    setCreatedKey(created.apiKey);
    await queryClient.invalidateQueries({ queryKey: person ? trpc.team.projects.queryKey() : trpc.admin.listProjects.queryKey() });
    switchProject.mutate({ projectId: created.projectId });
  };
  const createTeamProject = useMutation(trpc.team.createProject.mutationOptions({ onSuccess: onCreated }));
  const createAdminProject = useMutation(trpc.admin.createProject.mutationOptions({ onSuccess: onCreated }));
  return {
    projects: projects.data ?? [],
    switchTo: (projectId: string) => switchProject.mutate({ projectId }),
    create: person ? createTeamProject : createAdminProject,
    createdKey,
    forgetCreatedKey: () => setCreatedKey(null),
  };
}

/** A person's organisations, and switching between them (everything is read again after). */
export function useOrganizations() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const organizations = useQuery(trpc.session.organizations.queryOptions());
  const switchOrganization = useMutation(trpc.session.switchOrganization.mutationOptions({ onSuccess: () => queryClient.invalidateQueries() }));
  return { organizations: organizations.data ?? [], switchTo: (organizationId: string) => switchOrganization.mutate({ organizationId }) };
}
