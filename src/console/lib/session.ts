import { createContext, useContext } from "react";
import type { Session } from "./trpc";

export const SessionContext = createContext<Session | null>(null);

/** The signed-in session; only rendered inside the signed-in shell. */
export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error("useSession outside the signed-in console");
  return session;
}
