import { createContext, useContext } from "react";
import type { Role } from "../../core/key-scope";
import type { Session } from "./trpc";

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
