// The organisation's members, invitations and audit log, and a person's own sessions.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type RouterInputs, type RouterOutputs, useTRPC } from "../../lib/trpc";

export type Member = RouterOutputs["team"]["members"][number];
export type Invitation = RouterOutputs["team"]["invitations"][number];
export type AuditEvent = RouterOutputs["team"]["auditLog"]["events"][number];
export type AuditFilter = NonNullable<RouterInputs["team"]["auditLog"]["filter"]>;

export const useMembers = () => useQuery({ ...useTRPC().team.members.queryOptions(), staleTime: 0 });
export const useInvitations = (enabled: boolean) => useQuery({ ...useTRPC().team.invitations.queryOptions(), enabled });

/** A change to the organisation: members and invitations are read again after it. */
function useTeamChange() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return async () => {
    await queryClient.invalidateQueries({ queryKey: trpc.team.members.queryKey() });
    await queryClient.invalidateQueries({ queryKey: trpc.team.invitations.queryKey() });
  };
}

export function useInvite() {
  const refresh = useTeamChange();
  return useMutation(useTRPC().team.invite.mutationOptions({ onSuccess: refresh }));
}
export function useUpdateRole() {
  const refresh = useTeamChange();
  return useMutation(useTRPC().team.updateRole.mutationOptions({ onSuccess: refresh }));
}
/** A member's own API keys: what stops when they are removed. */
export const useMemberKeys = (userId: string) => useQuery({ ...useTRPC().team.memberKeys.queryOptions({ userId }), staleTime: 0 });

export function useRemoveMember() {
  const refresh = useTeamChange();
  return useMutation(useTRPC().team.remove.mutationOptions({ onSuccess: refresh }));
}
export function useUnlinkSso() {
  const refresh = useTeamChange();
  return useMutation(useTRPC().team.unlinkSso.mutationOptions({ onSuccess: refresh }));
}
export function useRevokeInvitation() {
  const refresh = useTeamChange();
  return useMutation(useTRPC().team.revokeInvitation.mutationOptions({ onSuccess: refresh }));
}

export const useMySessions = () => useQuery(useTRPC().session.list.queryOptions());
export function useRevokeSession() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return useMutation(trpc.session.revoke.mutationOptions({ onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.session.list.queryKey() }) }));
}
export function useChangePassword(onDone: () => void) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return useMutation(
    trpc.session.changePassword.mutationOptions({
      onSuccess: async () => {
        onDone();
        await queryClient.invalidateQueries({ queryKey: trpc.session.list.queryKey() });
      },
    }),
  );
}

export function useClearProjectRole() {
  const refresh = useTeamChange();
  return useMutation(useTRPC().team.clearProjectRole.mutationOptions({ onSuccess: refresh }));
}
export const useOrgProjects = () => useQuery(useTRPC().team.projects.queryOptions());
