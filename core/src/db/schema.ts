/** Core's tables. One migrations folder (core/drizzle, drizzle-kit generate) serves PostgreSQL and PGlite. */
import { sql } from 'drizzle-orm';
import {
  bigint,
  bigserial,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  smallint,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { deployments } from './hubSchema';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/** Key/value settings: the generated master secret, the sealed session signing key, OIDC settings. */
export const settings = pgTable('core_settings', {
  key: text('key').primaryKey(),
  value: text('value').notNull(),
  updatedAt: ts('updated_at').notNull().defaultNow(),
});

/** People: local users (password) and OIDC users (issuer, subject). The temporary admin is never a row. */
export const users = pgTable(
  'users',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    kind: text('kind', { enum: ['local', 'oidc'] }).notNull(),
    email: text('email').notNull(),
    name: text('name').notNull().default(''),
    role: text('role', { enum: ['admin', 'readonly'] }).notNull(),
    passwordHash: text('password_hash'),
    oidcIssuer: text('oidc_issuer'),
    oidcSubject: text('oidc_subject'),
    createdAt: ts('created_at').notNull().defaultNow(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('users_local_email_idx')
      .on(sql`lower(${t.email})`)
      .where(sql`${t.kind} = 'local'`),
    uniqueIndex('users_oidc_identity_idx').on(t.oidcIssuer, t.oidcSubject),
    index('users_role_idx').on(t.role),
  ],
);

/**
 * Refresh tokens of Core sessions (local users and the temporary admin), stored as SHA-256.
 * A rotation marks the old one used and adds its successor to the same family; presenting a used
 * one again revokes the whole family (reuse detection).
 */
export const refreshTokens = pgTable(
  'refresh_tokens',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    familyId: uuid('family_id').notNull(),
    tokenHash: text('token_hash').notNull(),
    userId: uuid('user_id').references(() => users.id, { onDelete: 'cascade' }),
    /** For the temporary admin's sessions instead of userId: the keyed fingerprint of its username and password. */
    temporaryAdmin: text('temporary_admin'),
    createdAt: ts('created_at').notNull().defaultNow(),
    expiresAt: ts('expires_at').notNull(),
    usedAt: ts('used_at'),
    revokedAt: ts('revoked_at'),
  },
  (t) => [uniqueIndex('refresh_tokens_hash_idx').on(t.tokenHash), index('refresh_tokens_family_idx').on(t.familyId)],
);

/** Failed logins, per lower-cased username and client address, for the brute-force limit. */
export const loginFailures = pgTable(
  'login_failures',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    username: text('username').notNull(),
    address: text('address').notNull(),
    at: ts('at').notNull().defaultNow(),
  },
  (t) => [
    index('login_failures_key_idx').on(t.username, t.address, t.at),
    index('login_failures_address_idx').on(t.address, t.at),
    index('login_failures_at_idx').on(t.at),
  ],
);

/**
 * The line of strange clients' sign-ins per username (domain/loginPacing.ts), shared by every Core process on the
 * database: `slots` are the epoch milliseconds at which the attempts waiting in it go, `tail` the last of them. A
 * row whose tail has passed holds nothing (it is deleted by the next paced attempt).
 */
export const loginLines = pgTable(
  'login_lines',
  {
    username: text('username').primaryKey(),
    slots: bigint('slots', { mode: 'number' }).array().notNull(),
    tail: bigint('tail', { mode: 'number' }).notNull(),
  },
  (t) => [index('login_lines_tail_idx').on(t.tail)],
);

export const machineTokens = pgTable(
  'machine_tokens',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    name: text('name').notNull(),
    role: text('role', { enum: ['admin', 'readonly'] }).notNull(),
    tokenHash: text('token_hash').notNull(),
    prefix: text('prefix').notNull(),
    /** Kept so that a re-issue restarts the same validity period. */
    expiresInDays: smallint('expires_in_days'),
    createdBy: text('created_by').notNull(),
    createdAt: ts('created_at').notNull().defaultNow(),
    expiresAt: ts('expires_at'),
    revokedAt: ts('revoked_at'),
    lastUsedAt: ts('last_used_at'),
  },
  (t) => [uniqueIndex('machine_tokens_hash_idx').on(t.tokenHash)],
);

/** One row per request made with a machine token, refused ones included. Never a body, query or secret. */
export const machineTokenAudit = pgTable(
  'machine_token_audit',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    tokenId: uuid('token_id')
      .notNull()
      .references(() => machineTokens.id, { onDelete: 'cascade' }),
    method: text('method').notNull(),
    path: text('path').notNull(),
    status: integer('status').notNull(),
    at: ts('at').notNull(),
  },
  (t) => [index('machine_token_audit_token_idx').on(t.tokenId, t.at, t.id)],
);

/** Secrets of the fleet: values sealed with AES-256-GCM under the master secret. */
export const secrets = pgTable('secrets', {
  name: text('name').primaryKey(),
  description: text('description').notNull().default(''),
  sealedValue: text('sealed_value').notNull(),
  createdAt: ts('created_at').notNull().defaultNow(),
  updatedAt: ts('updated_at').notNull().defaultNow(),
});

/**
 * A deployment variable bound to a Core secret: callers see the secret's name, never its value. A bound
 * secret cannot be deleted (on delete restrict): unbind it first.
 */
export const deploymentSecretBindings = pgTable(
  'deployment_secret_bindings',
  {
    deploymentId: uuid('deployment_id')
      .notNull()
      .references(() => deployments.id, { onDelete: 'cascade' }),
    variable: text('variable').notNull(),
    secretName: text('secret_name')
      .notNull()
      .references(() => secrets.name, { onDelete: 'restrict' }),
  },
  (t) => [
    primaryKey({ columns: [t.deploymentId, t.variable] }),
    index('deployment_secret_bindings_secret_idx').on(t.secretName),
  ],
);

/**
 * OIDC identities an admin deleted: their next token is refused instead of provisioning them again, until
 * an admin re-admits them (deletes the row).
 */
export const oidcBlockedIdentities = pgTable(
  'oidc_blocked_identities',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    issuer: text('issuer').notNull(),
    subject: text('subject').notNull(),
    email: text('email').notNull(),
    blockedBy: text('blocked_by').notNull(),
    blockedAt: ts('blocked_at').notNull().defaultNow(),
  },
  (t) => [uniqueIndex('oidc_blocked_identities_identity_idx').on(t.issuer, t.subject)],
);

/**
 * The jti of every Hub assertion Core accepted, until it expires: a replayed assertion is refused. In the
 * database (not in memory) so that every Core process behind a load balancer sees the same set.
 */
export const hubAssertionJtis = pgTable(
  'hub_assertion_jtis',
  {
    jti: text('jti').primaryKey(),
    expiresAt: ts('expires_at').notNull(),
  },
  (t) => [index('hub_assertion_jtis_expires_idx').on(t.expiresAt)],
);

/**
 * The reconciler's last observation of each deployment's container (state, ports, reason), written only
 * when it changes: every Core process answers from it without an engine call per deployment.
 */
export const deploymentObservations = pgTable('deployment_observations', {
  deploymentId: uuid('deployment_id')
    .primaryKey()
    .references(() => deployments.id, { onDelete: 'cascade' }),
  observed: jsonb('observed').$type<Record<string, unknown>>().notNull(),
  updatedAt: ts('updated_at').notNull().defaultNow(),
});

export * from './hubSchema';
export * from './activitySchema';
