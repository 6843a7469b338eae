// The organisation's members, invitations and audit log, and a person's own sessions.
import { useQuery } from "@tanstack/react-query";
import { type Trpc, useChange } from "../../lib/mutations";
import { useWholeList } from "../../lib/project-lists";
import { type RouterInputs, type RouterOutputs, useTRPC } from "../../lib/trpc";

export type Member = RouterOutputs["team"]["members"][number];
export type Invitation = RouterOutputs["team"]["invitations"][number];
export type AuditEvent = RouterOutputs["team"]["auditLog"]["events"][number];
export type AuditFilter = NonNullable<RouterInputs["team"]["auditLog"]["filter"]>;

export const useMembers = () =>
  useWholeList((t, c) => ({ key: t.team.members.queryKey(), list: c.team.members.query }), { cursorOf: (m) => m.userId, staleTime: 0 });
export const useInvitations = (enabled: boolean) =>
  useWholeList((t, c) => ({ key: t.team.invitations.queryKey(), list: c.team.invitations.query }), { enabled });

/** What a change to the organisation makes stale: its members and invitations. */
const TEAM = (t: Trpc) => [t.team.members.queryKey(), t.team.invitations.queryKey()];

export const useInvite = () => useChange((t) => t.team.invite, { refresh: TEAM });
export const useUpdateRole = () => useChange((t) => t.team.updateRole, { refresh: TEAM });
export const useRemoveMember = () => useChange((t) => t.team.remove, { refresh: TEAM });
export const useUnlinkSso = () => useChange((t) => t.team.unlinkSso, { refresh: TEAM });
export const useRevokeInvitation = () => useChange((t) => t.team.revokeInvitation, { refresh: TEAM });
export const useClearProjectRole = () => useChange((t) => t.team.clearProjectRole, { refresh: TEAM });

/** A member's own API keys: what stops when they are removed. */
export const useMemberKeys = (userId: string) => useQuery({ ...useTRPC().team.memberKeys.queryOptions({ userId }), staleTime: 0 });

export const useMySessions = () => useQuery(useTRPC().session.list.queryOptions());
const SESSIONS = (t: Trpc) => [t.session.list.queryKey()];
export const useRevokeSession = () => useChange((t) => t.session.revoke, { refresh: SESSIONS });
export const useChangePassword = (onDone: () => void) => useChange((t) => t.session.changePassword, { onDone, refresh: SESSIONS });

export const useOrgProjects = () => useQuery(useTRPC().team.projects.queryOptions());
