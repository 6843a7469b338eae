import type { KeyGrant, Role } from "../../core/key-scope";
import { z } from "zod";

export const SignInInput = z.strictObject({
  /** A project API key, or the admin token (HONE_ADMIN_TOKEN). */
  token: z.string().trim().min(1, "enter an API key").max(500, "an API key is at most 500 characters"),
});
export type SignInInput = z.input<typeof SignInInput>;

export const SwitchProjectInput = z.strictObject({ projectId: z.string().min(1).max(100) });
export type SwitchProjectInput = z.input<typeof SwitchProjectInput>;

/** Who a session is, as the console shows it. */
export type SessionInfo = {
  id: string;
  admin: boolean;
  project: { id: string; name: string } | null;
  key: { id: string; name: string | null; prefix: string } | null;
  /** A person's session: who, in which organisation, with which role there and in the project. */
  user: { id: string; email: string; name: string | null } | null;
  organization: { id: string; name: string } | null;
  orgRole: Role | null;
  role: Role | null;
  createdAt: Date;
  /** When the session ends unless used again before. */
  idleExpiresAt: Date;
  /** When the session ends however it is used. */
  expiresAt: Date;
};

/** A session as the transports hold it for one request. */
export type ResolvedSession = SessionInfo & { projectId: string | null; apiKeyId: string | null; keyGrant?: KeyGrant | null };

export type StartedSession = { token: string; session: SessionInfo };
