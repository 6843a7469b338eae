import { useQuery } from "@tanstack/react-query";
import { createContext, useContext } from "react";
import type { Role } from "../../core/key-scope";
import { type Session, useTRPC } from "./trpc";

export const SessionContext = createContext<Session | null>(null);

/** The signed-in session; only rendered inside the signed-in shell. */
export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error("useSession outside the signed-in console");
  return session;
}

const RANK: Record<Role, number> = { viewer: 0, member: 1, admin: 2, owner: 3 };

/**
 * Whether the session may do what needs this role, to show or hide the controls that do it (the
 * server decides: a hidden button is a courtesy, not the check). A person: by their role here; a
 * key's or the admin's session: everything but what only an owner does.
 */
export function canAct(session: Session, least: Role): boolean {
  if (session.user) return session.role != null && RANK[session.role] >= RANK[least];
  return session.admin || least !== "owner";
}

export function useCan(least: Role): boolean {
  const session = useContext(SessionContext);
  return session ? canAct(session, least) : false;
}

const WHO_MAY: Record<Role, string> = { viewer: "members of this project", member: "members and above", admin: "admins and owners", owner: "owners" };

/**
 * What a procedure needs, from the table the server enforces (access.rules, read once a session):
 * `allowed` for this session, and when not, the sentence that says who may ("Only admins and
 * owners can do this; your role here is viewer"). Unknown while the table loads: allowed (the
 * server decides anyway).
 */
export function useMay(path: string): { allowed: boolean; least: Role; why: string | null } {
  const session = useContext(SessionContext);
  const trpc = useTRPC();
  const rules = useQuery({ ...trpc.access.rules.queryOptions(), staleTime: Number.POSITIVE_INFINITY, enabled: Boolean(session) });
  const least = (rules.data?.[path] as Role | undefined) ?? "viewer";
  const allowed = session ? canAct(session, least) : false;
  const role = session?.user ? (session.role ?? "none") : null;
  return { allowed, least, why: allowed ? null : `Only ${WHO_MAY[least]} can do this${role ? `; your role here is ${role}` : ""}` };
}
