import { z } from "zod";
import { ROLES, type Role } from "../../core/key-scope";

export type { Role };

const email = z.string().trim().toLowerCase().max(320, "an email address is at most 320 characters").email("enter an email address (name@example.com)");

export const PASSWORD_MIN = 12;
export const PASSWORD_MAX = 200;

/**
 * The password rule: 12 to 200 characters, at least 5 different characters, not the email address.
 * Length is what resists guessing; composition rules are not asked for (NIST SP 800-63B).
 */
export const Password = z
  .string()
  .min(PASSWORD_MIN, `a password has at least ${PASSWORD_MIN} characters`)
  .max(PASSWORD_MAX, `a password has at most ${PASSWORD_MAX} characters`)
  .refine((p) => new Set(p).size >= 5, "a password has at least 5 different characters");

export const RoleInput = z.enum(ROLES as [Role, ...Role[]], { message: `a role is one of ${ROLES.join(", ")}` });

export const PasswordSignInInput = z.strictObject({ email, password: z.string().min(1, "enter your password").max(PASSWORD_MAX) });
export type PasswordSignInInput = z.input<typeof PasswordSignInInput>;

const name = z.string().trim().min(1).max(200).optional();

export const AcceptInvitationInput = z.strictObject({
  token: z.string().trim().min(1, "the invitation link's token is missing").max(200),
  /** A new user's email (the first owner's; an invitation names its own). */
  email: email.optional(),
  /** A new user's password; an existing user signs in with theirs. */
  password: z.string().max(PASSWORD_MAX).optional(),
  name,
  /** The first owner's organisation name. */
  organizationName: z.string().trim().min(1).max(200).optional(),
});
export type AcceptInvitationInput = z.input<typeof AcceptInvitationInput>;

export const InviteMemberInput = z.strictObject({ email, role: RoleInput });
export type InviteMemberInput = z.input<typeof InviteMemberInput>;

export const UpdateMemberRoleInput = z.strictObject({
  userId: z.string().min(1).max(100),
  role: RoleInput,
  /** Narrow the role in this project only (never above the organisation role); null `role` clears it. */
  projectId: z.string().min(1).max(100).optional(),
});
export type UpdateMemberRoleInput = z.input<typeof UpdateMemberRoleInput>;

export const ClearProjectRoleInput = z.strictObject({ userId: z.string().min(1).max(100), projectId: z.string().min(1).max(100) });

export const UserIdInput = z.strictObject({ userId: z.string().min(1).max(100) });

/** What happens to a person's own API keys when they are removed: they stop (the default), or become their projects' service keys. */
export const MemberKeysOnRemoval = z.enum(["stop", "project"], { error: `keys must be "stop" or "project"` });

export const RemoveMemberInput = z.strictObject({ userId: z.string().min(1).max(100), keys: MemberKeysOnRemoval.optional() });
export type RemoveMemberInput = z.input<typeof RemoveMemberInput>;

/** A person's keys to hand to their projects: those named, or all of them in the organisation. */
export const HandKeysInput = z.strictObject({
  userId: z.string().min(1).max(100),
  keyIds: z.array(z.string().min(1).max(100)).min(1).max(1_000).optional(),
});
export type HandKeysInput = z.input<typeof HandKeysInput>;
export const IdInput = z.strictObject({ id: z.string().min(1).max(100) });

export const ChangePasswordInput = z.strictObject({ currentPassword: z.string().max(PASSWORD_MAX).optional(), newPassword: Password });
export type ChangePasswordInput = z.input<typeof ChangePasswordInput>;

export const SwitchOrganizationInput = z.strictObject({ organizationId: z.string().min(1).max(100) });

export const CreateOrgProjectInput = z.strictObject({ name: z.string().trim().min(1, "name the project").max(200) });

export type Member = {
  userId: string;
  email: string;
  name: string | null;
  role: Role;
  /** Roles narrowed per project. */
  projectRoles: { projectId: string; role: Role }[];
  sso: boolean;
  disabled: boolean;
  joinedAt: Date;
};

export type InvitationInfo = {
  id: string;
  email: string | null;
  role: Role;
  invitedBy: string | null;
  createdAt: Date;
  expiresAt: Date;
  acceptedAt: Date | null;
  revokedAt: Date | null;
};

/** An invitation just made: its link is shown once, to the inviter. */
export type CreatedInvitation = InvitationInfo & { url: string; token: string; emailed: boolean };
