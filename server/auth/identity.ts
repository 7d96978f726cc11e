/**
 * OpenID Connect identity → Hub user. The Hub user is found by (issuer, subject); on the first sign-in
 * of an identity, an existing user with the same email that has no identity yet (e.g. one created with
 * the CLI) is linked, otherwise a user is created. Roles: HUB_SUPERADMIN_EMAILS promotes to superadmin;
 * with the development provider the first user to sign in becomes superadmin.
 *
 * An email counts only when the provider says email_verified === true (a missing claim is not a yes):
 * only then is an account created under it, linked by it, or promoted for it. An unverified identity
 * still signs in, into a separate account of its own that holds no email anyone could look up, link or
 * invite (a placeholder under the reserved .invalid domain) and is granted nothing — as GitLab and
 * Grafana treat unverified provider emails.
 */
import { createHash } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import { getDb } from '../db/client';
import { users } from '../db/schema';
import { writeAudit } from '../domain/audit';
import type { PlatformRole } from '../domain/principal';
import { normalizeEmail } from '../domain/users';

const SIGN_IN_LOCK = 72_620_101;

export type SignInRefusal = 'no_email' | 'email_unverified' | 'identity_conflict';

export class SignInRefused extends Error {
  constructor(
    readonly reason: SignInRefusal,
    message: string,
  ) {
    super(message);
  }
}

export interface OidcIdentity {
  issuer: string;
  subject: string;
  email?: string | null;
  /** The provider's email_verified claim; undefined when it sends none. */
  emailVerified?: boolean;
  name?: string | null;
}

export interface SignInPolicy {
  superadminEmails: string[];
  /** Development provider: the first user to sign in becomes superadmin. */
  firstUserIsSuperadmin: boolean;
}

export interface SignedInUser {
  id: string;
  email: string;
  role: PlatformRole;
  created: boolean;
}

/** The email of an unverified identity's account: unique to the identity, never a real address. */
export function unverifiedPlaceholderEmail(issuer: string, subject: string): string {
  return `unverified-${createHash('sha256').update(`${issuer}\n${subject}`).digest('hex').slice(0, 32)}@unverified.invalid`;
}

export async function userForOidcIdentity(identity: OidcIdentity, policy: SignInPolicy): Promise<SignedInUser> {
  if (!identity.subject) throw new SignInRefused('no_email', 'The identity provider sent no subject');
  const email = identity.email ? normalizeEmail(identity.email) : '';
  const name = (identity.name ?? '').trim().slice(0, 200);
  const db = await getDb();
  return db.transaction(async (tx) => {
    // Serializes sign-ins: the first-user rule and email linking must not race.
    await tx.execute(sql`select pg_advisory_xact_lock(${SIGN_IN_LOCK})`);
    const system = { kind: 'system' as const, id: 'oidc-sign-in' };

    let [user] = await tx
      .select()
      .from(users)
      .where(and(eq(users.oidcIssuer, identity.issuer), eq(users.oidcSubject, identity.subject)));
    let created = false;

    if (!user) {
      if (!email || !/^[^\s@]+@[^\s@]+$/.test(email)) {
        throw new SignInRefused('no_email', 'Your identity provider did not share an email address; the Hub needs one');
      }
      const verified = identity.emailVerified === true;
      const [byEmail] = verified ? await tx.select().from(users).where(eq(users.email, email)) : [];
      if (!verified) {
        [user] = await tx
          .insert(users)
          .values({
            email: unverifiedPlaceholderEmail(identity.issuer, identity.subject),
            name,
            role: 'user',
            oidcIssuer: identity.issuer,
            oidcSubject: identity.subject,
          })
          .returning();
        created = true;
        await writeAudit(tx, {
          actor: system,
          action: 'user.create',
          targetType: 'user',
          targetId: user!.id,
          details: { issuer: identity.issuer, email_verified: false },
        });
      } else if (byEmail) {
        if (byEmail.oidcIssuer !== null || byEmail.oidcSubject !== null) {
          throw new SignInRefused(
            'identity_conflict',
            `The Hub account for ${email} is linked to another sign-in identity`,
          );
        }
        [user] = await tx
          .update(users)
          .set({
            oidcIssuer: identity.issuer,
            oidcSubject: identity.subject,
            name: byEmail.name || name,
            updatedAt: sql`now()`,
          })
          .where(eq(users.id, byEmail.id))
          .returning();
        await writeAudit(tx, {
          actor: system,
          action: 'user.link_identity',
          targetType: 'user',
          targetId: byEmail.id,
          details: { email, issuer: identity.issuer },
        });
      } else {
        [user] = await tx
          .insert(users)
          .values({ email, name, role: 'user', oidcIssuer: identity.issuer, oidcSubject: identity.subject })
          .returning();
        created = true;
        await writeAudit(tx, {
          actor: system,
          action: 'user.create',
          targetType: 'user',
          targetId: user!.id,
          details: { email, issuer: identity.issuer },
        });
      }
    }
    let current = user!;

    let promoteBecause: string | null = null;
    if (current.role !== 'superadmin') {
      if (identity.emailVerified === true && policy.superadminEmails.includes(current.email))
        promoteBecause = 'HUB_SUPERADMIN_EMAILS';
      else if (policy.firstUserIsSuperadmin) {
        const [other] = await tx.select({ id: users.id }).from(users).where(eq(users.role, 'superadmin')).limit(1);
        if (!other) promoteBecause = 'first user of the development provider';
      }
    }
    if (promoteBecause) {
      const [promoted] = await tx
        .update(users)
        .set({ role: 'superadmin', updatedAt: sql`now()` })
        .where(eq(users.id, current.id))
        .returning();
      current = promoted!;
      await writeAudit(tx, {
        actor: system,
        action: 'user.role_change',
        targetType: 'user',
        targetId: current.id,
        details: { from: user!.role, to: 'superadmin', reason: promoteBecause },
      });
    }
    return { id: current.id, email: current.email, role: current.role, created };
  });
}
