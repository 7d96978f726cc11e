/** Wire shapes of the account API (organization, profile, instance keys, members) and their inputs. */
import { z } from 'zod';

/** Organization slugs: lowercase letters, digits and hyphens, 3 to 63 characters. */
export const orgSlug = () =>
  z
    .string()
    .min(3, 'must be 3 to 63 characters')
    .max(63, 'must be 3 to 63 characters')
    .regex(/^[a-z0-9-]+$/, 'may contain only lowercase letters, digits and hyphens');

export const orgName = () => z.string().trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters');
export const personName = () =>
  z.string().trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters');
export const keyName = () => z.string().trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters');

export const ORG_STATUSES = ['active', 'suspended'] as const;
export const ORG_TIERS = ['free', 'pro', 'enterprise'] as const;
export const ORG_ROLES = ['admin', 'member'] as const;
export const PLATFORM_ROLES = ['user', 'admin', 'superadmin'] as const;
export const KEY_STATUSES = ['active', 'revoked'] as const;

export const OrganizationSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  slug: z.string(),
  status: z.enum(ORG_STATUSES).describe('active: keys and tokens work; suspended: they are refused with 403'),
  tier: z.enum(ORG_TIERS),
  role: z.enum(ORG_ROLES).describe("The caller's role in the organization"),
  created_at: z.string().describe('ISO 8601'),
});

export const ProfileSchema = z.object({
  id: z.uuid(),
  email: z.string(),
  name: z.string(),
  role: z.enum(PLATFORM_ROLES).describe('Platform role'),
  organization: z
    .object({
      id: z.uuid(),
      name: z.string(),
      slug: z.string(),
      tier: z.enum(ORG_TIERS),
      status: z.enum(ORG_STATUSES),
      role: z.enum(ORG_ROLES),
    })
    .nullable(),
});

export const ApiKeySchema = z.object({
  id: z.uuid(),
  name: z.string(),
  key_prefix: z.string().describe('Leading characters of the key, for display'),
  status: z.enum(KEY_STATUSES),
  created_at: z.string(),
  last_used_at: z.string().nullable(),
});

/** The only shape that carries the full key: create and re-issue responses. */
export const IssuedApiKeySchema = z.object({
  id: z.uuid(),
  name: z.string(),
  key: z.string().describe('The full key (svh_…); shown only in this response'),
  key_prefix: z.string(),
  status: z.enum(KEY_STATUSES),
});

export const MemberSchema = z.object({
  user_id: z.uuid(),
  email: z.string(),
  name: z.string(),
  role: z.enum(ORG_ROLES),
  joined_at: z.string().nullable(),
});

const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());

export function toApiKey(row: {
  id: string;
  name: string;
  keyPrefix: string;
  status: 'active' | 'revoked';
  createdAt: Date;
  lastUsedAt: Date | null;
}) {
  return {
    id: row.id,
    name: row.name,
    key_prefix: row.keyPrefix,
    status: row.status,
    created_at: iso(row.createdAt)!,
    last_used_at: iso(row.lastUsedAt),
  };
}

export function toIssuedApiKey(
  row: { id: string; name: string; keyPrefix: string; status: 'active' | 'revoked' },
  secret: string,
) {
  return { id: row.id, name: row.name, key: secret, key_prefix: row.keyPrefix, status: row.status };
}

export function toMember(row: {
  id: string;
  email: string;
  name: string;
  orgRole: 'admin' | 'member' | null;
  orgJoinedAt: Date | null;
}) {
  return {
    user_id: row.id,
    email: row.email,
    name: row.name,
    role: row.orgRole ?? 'member',
    joined_at: iso(row.orgJoinedAt),
  };
}

export { iso as isoOrNull };

export const INVITATION_STATUSES = ['pending', 'accepted', 'declined', 'revoked'] as const;

/** An invitation as its organization's admins see it. */
export const InvitationSchema = z.object({
  id: z.uuid(),
  email: z.string().describe('The invited address (lower-cased)'),
  role: z.enum(ORG_ROLES).describe('The role the invitee gets on accepting'),
  status: z.enum(INVITATION_STATUSES),
  created_at: z.string().describe('ISO 8601'),
  expires_at: z.string().describe('ISO 8601; a pending invitation cannot be accepted after it'),
  invited_by: z
    .object({ user_id: z.uuid(), name: z.string(), email: z.string() })
    .nullable()
    .describe('null when the inviter no longer exists'),
});

/** An invitation as its invitee sees it. */
export const ReceivedInvitationSchema = z.object({
  id: z.uuid(),
  role: z.enum(ORG_ROLES),
  created_at: z.string(),
  expires_at: z.string(),
  organization: z.object({ id: z.uuid(), name: z.string(), slug: z.string() }),
  invited_by: z.object({ name: z.string(), email: z.string() }).nullable(),
});

type InvitationRowLike = {
  id: string;
  email: string;
  role: 'admin' | 'member';
  status: (typeof INVITATION_STATUSES)[number];
  createdAt: Date;
  expiresAt: Date;
  invitedBy: string | null;
  inviterName: string | null;
  inviterEmail: string | null;
};

export function toInvitation(row: InvitationRowLike) {
  return {
    id: row.id,
    email: row.email,
    role: row.role,
    status: row.status,
    created_at: iso(row.createdAt)!,
    expires_at: iso(row.expiresAt)!,
    invited_by:
      row.invitedBy && row.inviterEmail !== null
        ? { user_id: row.invitedBy, name: row.inviterName ?? '', email: row.inviterEmail }
        : null,
  };
}

export function toReceivedInvitation(row: InvitationRowLike & { orgId: string; orgName: string; orgSlug: string }) {
  return {
    id: row.id,
    role: row.role,
    created_at: iso(row.createdAt)!,
    expires_at: iso(row.expiresAt)!,
    organization: { id: row.orgId, name: row.orgName, slug: row.orgSlug },
    invited_by: row.inviterEmail !== null ? { name: row.inviterName ?? '', email: row.inviterEmail } : null,
  };
}
