/**
 * The Hub's whole data model. One file so that one `drizzle-kit generate` sees every table;
 * tables are grouped by the area that owns them.
 */
import { sql } from 'drizzle-orm';
import {
  bigint,
  bigserial,
  boolean,
  date,
  index,
  integer,
  jsonb,
  pgTable,
  smallint,
  primaryKey,
  text,
  timestamp,
  unique,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';

const id = () => uuid('id').primaryKey().defaultRandom();
const createdAt = () => timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow();
const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

// ---------------------------------------------------------------- platform

/** Process-independent settings, e.g. the generated master secret when HUB_SECRET is not set. */
export const hubSettings = pgTable('hub_settings', {
  key: text('key').primaryKey(),
  value: text('value').notNull(),
  createdAt: createdAt(),
});

/** JWT signing keys. The private key is stored encrypted with the master secret. */
export const signingKeys = pgTable('signing_keys', {
  kid: text('kid').primaryKey(),
  alg: text('alg').notNull(),
  publicJwk: jsonb('public_jwk').notNull(),
  privateJwkEnc: text('private_jwk_enc').notNull(),
  createdAt: createdAt(),
});

// ---------------------------------------------------------------- accounts

export const organizations = pgTable('organizations', {
  id: id(),
  name: text('name').notNull(),
  slug: text('slug').notNull().unique(),
  status: text('status', { enum: ['active', 'suspended'] })
    .notNull()
    .default('active'),
  tier: text('tier', { enum: ['free', 'pro', 'enterprise'] })
    .notNull()
    .default('free'),
  createdAt: createdAt(),
  updatedAt: ts('updated_at').notNull().defaultNow(),
});

export const subscriptions = pgTable('subscriptions', {
  id: id(),
  orgId: uuid('org_id')
    .notNull()
    .unique()
    .references(() => organizations.id, { onDelete: 'cascade' }),
  plan: text('plan', { enum: ['free', 'pro', 'enterprise'] })
    .notNull()
    .default('free'),
  status: text('status').notNull().default('active'),
  createdAt: createdAt(),
});

export const users = pgTable(
  'users',
  {
    id: id(),
    email: text('email').notNull().unique(), // stored lower-cased
    name: text('name').notNull().default(''),
    role: text('role', { enum: ['user', 'admin', 'superadmin'] })
      .notNull()
      .default('user'),
    orgId: uuid('org_id').references(() => organizations.id, { onDelete: 'set null' }),
    orgRole: text('org_role', { enum: ['admin', 'member'] }),
    /** When the current membership began; personal access tokens minted before it are dead. */
    orgJoinedAt: ts('org_joined_at'),
    oidcIssuer: text('oidc_issuer'),
    oidcSubject: text('oidc_subject'),
    /** Sign-out (here or everywhere): Hub JWTs of this user issued before it are refused. */
    sessionsValidAfter: ts('sessions_valid_after'),
    createdAt: createdAt(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [uniqueIndex('users_oidc_identity_idx').on(t.oidcIssuer, t.oidcSubject), index('users_org_idx').on(t.orgId)],
);

/**
 * An organization admin's invitation of an email address to join with a role. Only what the invitation
 * needs: the (lower-cased) email, role, organization, inviter, expiry and status. Nothing links it to a
 * user account until the signed-in user whose verified email matches answers it. One pending invitation
 * per organization and email (a new one replaces it). Expired = pending with expires_at in the past.
 */
export const orgInvitations = pgTable(
  'org_invitations',
  {
    id: id(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    email: text('email').notNull(), // stored lower-cased
    role: text('role', { enum: ['admin', 'member'] }).notNull(),
    invitedBy: uuid('invited_by').references(() => users.id, { onDelete: 'set null' }),
    status: text('status', { enum: ['pending', 'accepted', 'declined', 'revoked'] })
      .notNull()
      .default('pending'),
    createdAt: createdAt(),
    expiresAt: ts('expires_at').notNull(),
    respondedAt: ts('responded_at'),
  },
  (t) => [
    uniqueIndex('org_invitations_pending_idx')
      .on(t.orgId, t.email)
      .where(sql`${t.status} = 'pending'`),
    index('org_invitations_email_idx').on(t.email),
  ],
);

export const instanceKeys = pgTable(
  'instance_keys',
  {
    id: id(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    keyHash: text('key_hash').notNull().unique(),
    keyPrefix: text('key_prefix').notNull(),
    status: text('status', { enum: ['active', 'revoked'] })
      .notNull()
      .default('active'),
    createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
    reissuedAt: ts('reissued_at'),
    revokedAt: ts('revoked_at'),
    lastUsedAt: ts('last_used_at'),
  },
  (t) => [index('instance_keys_org_idx').on(t.orgId)],
);

export const personalAccessTokens = pgTable(
  'personal_access_tokens',
  {
    id: id(),
    name: text('name').notNull(),
    tokenHash: text('token_hash').notNull().unique(),
    tokenPrefix: text('token_prefix').notNull(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    orgId: uuid('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    instanceKeyId: uuid('instance_key_id')
      .notNull()
      .references(() => instanceKeys.id, { onDelete: 'cascade' }),
    /** The minter's orgJoinedAt at mint time: leaving and re-joining does not revive the token. */
    membershipSince: ts('membership_since').notNull(),
    /**
     * The script token (bearer Hub JWT) it was minted with, or null (minted in a browser session). Such a token is
     * derived: it ends with that script token (revoked, expired, signed out); deleting the row deletes it too.
     */
    scriptTokenId: uuid('script_token_id').references(() => scriptTokens.id, { onDelete: 'cascade' }),
    expiresAt: ts('expires_at'),
    revokedAt: ts('revoked_at'),
    rotatedAt: ts('rotated_at'),
    lastUsedAt: ts('last_used_at'),
    createdAt: createdAt(),
  },
  (t) => [index('pat_org_idx').on(t.orgId), index('pat_user_idx').on(t.userId)],
);

/**
 * Hub JWTs issued for scripts (`hub token`, the dashboard's API access panel): the token's `jti` is the id.
 * Never the token itself. A script JWT whose row is gone or revoked is refused (server/auth/credentials.ts).
 */
export const scriptTokens = pgTable(
  'script_tokens',
  {
    id: uuid('id').primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    label: text('label').notNull().default(''),
    source: text('source', { enum: ['cli', 'dashboard'] }).notNull(),
    expiresAt: ts('expires_at').notNull(),
    revokedAt: ts('revoked_at'),
    lastUsedAt: ts('last_used_at'),
    createdAt: createdAt(),
  },
  (t) => [index('script_tokens_user_idx').on(t.userId, t.createdAt)],
);

// ---------------------------------------------------------------- catalog

export const categories = pgTable('categories', {
  id: id(),
  name: text('name').notNull(),
  slug: text('slug').notNull().unique(),
  description: text('description').notNull().default(''),
  icon: text('icon').notNull().default(''),
  sortOrder: integer('sort_order').notNull().default(0),
  isPrivate: boolean('is_private').notNull().default(false),
  createdAt: createdAt(),
  updatedAt: ts('updated_at').notNull().defaultNow(),
});

export type EnvVar = { name: string; value: string };
export type EnvSchemaEntry = { name: string; required: boolean; default_value: string; description: string };
export type Port = { containerPort: number; protocol: string };
export type VolumeMount = { name: string; mountPath: string };
export type Toleration = {
  key?: string;
  operator?: 'Exists' | 'Equal';
  value?: string;
  effect?: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
  tolerationSeconds?: number;
};

export const templates = pgTable(
  'templates',
  {
    id: id(),
    name: text('name').notNull(),
    slug: text('slug').notNull().unique(),
    description: text('description').notNull().default(''),
    version: text('version').notNull().default(''),
    kind: text('kind').notNull().default('deployment'),
    categoryId: uuid('category_id')
      .notNull()
      .references(() => categories.id, { onDelete: 'restrict' }),
    /** Owning organization; null for platform templates. */
    orgId: uuid('org_id').references(() => organizations.id, { onDelete: 'set null' }),
    imageName: text('image_name').notNull(),
    imageTag: text('image_tag').notNull().default('latest'),
    cpuRequest: text('cpu_request').notNull().default(''),
    memoryRequest: text('memory_request').notNull().default(''),
    gpuCount: integer('gpu_count').notNull().default(0),
    vramRequest: text('vram_request').notNull().default(''),
    concurrentJobs: integer('concurrent_jobs').notNull().default(1),
    env: jsonb('env').$type<EnvVar[]>().notNull().default([]),
    envSchema: jsonb('env_schema').$type<EnvSchemaEntry[]>().notNull().default([]),
    ports: jsonb('ports').$type<Port[]>().notNull().default([]),
    volumeMounts: jsonb('volume_mounts').$type<VolumeMount[]>().notNull().default([]),
    nodeSelector: jsonb('node_selector').$type<Record<string, string>>().notNull().default({}),
    requiredNetworkTypes: text('required_network_types')
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    tags: text('tags')
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    isPublic: boolean('is_public').notNull().default(true),
    isFeatured: boolean('is_featured').notNull().default(false),
    minTier: text('min_tier', { enum: ['free', 'pro', 'enterprise'] })
      .notNull()
      .default('free'),
    downloadCount: bigint('download_count', { mode: 'number' }).notNull().default(0),
    documentation: text('documentation').notNull().default(''),
    registryUrl: text('registry_url').notNull().default(''),
    /** Encrypted (AES-256-GCM with the master secret); never returned in clear. */
    registryCredentialsEnc: text('registry_credentials_enc'),
    secretRefs: jsonb('secret_refs').$type<string[]>().notNull().default([]),
    command: jsonb('command').$type<string[]>().notNull().default([]),
    tolerations: jsonb('tolerations').$type<Toleration[]>().notNull().default([]),
    iconUrl: text('icon_url').notNull().default(''),
    createdAt: createdAt(),
    /** Content change time, and the sync marker: also bumped when the template's visibility widens. */
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [
    index('templates_category_idx').on(t.categoryId),
    index('templates_org_idx').on(t.orgId),
    index('templates_updated_at_idx').on(t.updatedAt),
  ],
);

/**
 * The catalog's read model: one narrow row per template with only what lists filter, rank, order and
 * count by (~200 bytes against ~1.7 KB for a template row), so that a search or a deep page reads a
 * table that stays in memory and joins the wide row for the page's templates only. Written by triggers
 * on templates (migration 0002) in the same statement as the template itself; never written by code.
 */
export const catalogEntries = pgTable(
  'catalog_entries',
  {
    templateId: uuid('template_id').primaryKey(),
    categoryId: uuid('category_id').notNull(),
    orgId: uuid('org_id'),
    isPublic: boolean('is_public').notNull(),
    isFeatured: boolean('is_featured').notNull(),
    /** 0 featured, 1 not: the catalog order (featured first, name, id) as one ascending key, so a position in it is a row comparison. */
    featuredRank: smallint('featured_rank').notNull(),
    name: text('name').notNull(),
    /** lower(name) and lower(description): what search matches, folded once on write (LIKE, not ILIKE per row). */
    searchName: text('search_name').notNull(),
    searchDescription: text('search_description').notNull(),
    /** Lower-cased (migration 0005): tag filters and search match tags whatever their case. */
    tags: text('tags').array().notNull(),
    /**
     * The lower-cased tags as one text, each between unit separators (U+001F): a search term equal to a tag
     * is `LIKE '%\x1fterm\x1f%'`, answered by a trigram index like name and description are, so a search
     * combined with a tag filter still ANDs index bitmaps (the tags' GIN index serves the filter).
     */
    searchTags: text('search_tags').notNull().default(''),
  },
  (t) => [
    // Covering (the trailing columns follow a unique prefix, so they only carry the visibility columns):
    // a page in catalog order, its visibility and its offset are read from the index alone.
    index('catalog_entries_order_idx').on(t.featuredRank, t.name, t.templateId, t.categoryId, t.orgId, t.isPublic),
    index('catalog_entries_category_order_idx').on(
      t.categoryId,
      t.featuredRank,
      t.name,
      t.templateId,
      t.orgId,
      t.isPublic,
    ),
    // A search's page in rank order: the matches of one rank tier (catalog/search.ts, searchTiers) are read in
    // byte order of the lower-cased name (the tie order), visibility from the index, until the page is full.
    index('catalog_entries_search_name_order_idx').on(
      sql`(${t.searchName} collate "C")`,
      t.templateId,
      t.categoryId,
      t.orgId,
      t.isPublic,
      t.isFeatured,
    ),
    index('catalog_entries_tags_idx').using('gin', t.tags),
    index('catalog_entries_name_trgm_idx').using('gin', sql`${t.searchName} gin_trgm_ops`),
    index('catalog_entries_description_trgm_idx').using('gin', sql`${t.searchDescription} gin_trgm_ops`),
    index('catalog_entries_tags_trgm_idx').using('gin', sql`${t.searchTags} gin_trgm_ops`),
  ],
);

/**
 * Template counts per (category, owner organization, public, featured): every scope's count of a category
 * is a sum over a few of these rows (visibility.ts), so counts never scan the catalog. Kept exact by a
 * statement trigger on templates (migration 0002), in the transaction of the write.
 */
export const categoryTemplateCounts = pgTable(
  'category_template_counts',
  {
    categoryId: uuid('category_id')
      .notNull()
      .references(() => categories.id, { onDelete: 'cascade' }),
    orgId: uuid('org_id'),
    isPublic: boolean('is_public').notNull(),
    isFeatured: boolean('is_featured').notNull(),
    n: integer('n').notNull(),
  },
  (t) => [
    unique('category_template_counts_key').on(t.categoryId, t.orgId, t.isPublic, t.isFeatured).nullsNotDistinct(),
  ],
);

export const accessGrants = pgTable(
  'access_grants',
  {
    id: id(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    categoryId: uuid('category_id')
      .notNull()
      .references(() => categories.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('access_grants_org_category_idx').on(t.orgId, t.categoryId),
    index('access_grants_category_idx').on(t.categoryId),
  ],
);

/**
 * Sync tombstones: a template left the view of some audience (deleted, made private, moved, grant revoked).
 * audience: everyone (it was public), org (audienceOrgId could see it), admins (only admins could).
 * Platform admins read every row. The updates endpoint reports those still invisible to the caller.
 */
export const templateExits = pgTable(
  'template_exits',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    templateId: uuid('template_id').notNull(),
    slug: text('slug').notNull(),
    audience: text('audience', { enum: ['everyone', 'org', 'admins'] }).notNull(),
    audienceOrgId: uuid('audience_org_id'),
    at: ts('at').notNull(),
  },
  (t) => [index('template_exits_at_idx').on(t.at)],
);

// ---------------------------------------------------------------- audit

export const auditLog = pgTable(
  'audit_log',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    actorType: text('actor_type', { enum: ['user', 'instance', 'system'] }).notNull(),
    actorId: text('actor_id'),
    orgId: uuid('org_id'),
    action: text('action').notNull(),
    targetType: text('target_type').notNull(),
    targetId: text('target_id'),
    details: jsonb('details').$type<Record<string, unknown>>().notNull().default({}),
    createdAt: createdAt(),
  },
  (t) => [
    index('audit_log_created_idx').on(t.createdAt),
    index('audit_log_actor_idx').on(t.actorId),
    index('audit_log_target_idx').on(t.targetId),
  ],
);

// ---------------------------------------------------------------- instance support surface

export const instanceReports = pgTable('instance_reports', {
  instanceKeyId: uuid('instance_key_id')
    .primaryKey()
    .references(() => instanceKeys.id, { onDelete: 'cascade' }),
  version: text('version'),
  baseUrl: text('base_url'),
  mcpUrl: text('mcp_url'),
  hostname: text('hostname'),
  reportedAt: ts('reported_at').notNull().defaultNow(),
  /**
   * Changes of an existing mcp_url or base_url not yet acknowledged by an organization admin (the instance's health
   * row shows them): [{at, field, from, to, key_prefix, audit_id}], newest last. Null when none.
   */
  urlChanges: jsonb('url_changes').$type<InstanceUrlChange[]>(),
});

export interface InstanceUrlChange {
  at: string;
  field: 'mcp_url' | 'base_url';
  from: string | null;
  to: string | null;
  /** The display prefix of the instance key secret that made the change (a re-issued key has a new one). */
  key_prefix: string;
}

export const dnsRecords = pgTable('dns_records', {
  instanceKeyId: uuid('instance_key_id')
    .primaryKey()
    .references(() => instanceKeys.id, { onDelete: 'cascade' }),
  hostname: text('hostname').notNull().unique(),
  ip: text('ip').notNull(),
  publishState: text('publish_state', { enum: ['published', 'pending', 'failed', 'local'] })
    .notNull()
    .default('local'),
  publishError: text('publish_error'),
  publishAttempts: integer('publish_attempts').notNull().default(0),
  /** When the background publisher may (re)try; also its lease while a push is in flight. */
  publishNextAt: ts('publish_next_at'),
  publishedAt: ts('published_at'),
  /** Set by DELETE while the record is still being removed from the DNS server (tombstone). */
  deletedAt: ts('deleted_at'),
  updatedAt: ts('updated_at').notNull().defaultNow(),
});

export const supportTickets = pgTable(
  'support_tickets',
  {
    id: id(),
    number: bigserial('number', { mode: 'number' }).notNull().unique(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    instanceKeyId: uuid('instance_key_id').references(() => instanceKeys.id, { onDelete: 'set null' }),
    subject: text('subject').notNull(),
    body: text('body').notNull(),
    severity: text('severity', { enum: ['low', 'normal', 'high', 'urgent'] })
      .notNull()
      .default('normal'),
    status: text('status', { enum: ['open', 'pending', 'closed'] })
      .notNull()
      .default('open'),
    diagnostics: jsonb('diagnostics').$type<Record<string, unknown>>(),
    createdAt: createdAt(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [
    index('support_tickets_org_idx').on(t.orgId, t.createdAt),
    index('support_tickets_instance_idx').on(t.instanceKeyId),
  ],
);

export const supportMessages = pgTable(
  'support_messages',
  {
    id: id(),
    ticketId: uuid('ticket_id')
      .notNull()
      .references(() => supportTickets.id, { onDelete: 'cascade' }),
    authorType: text('author_type', { enum: ['instance', 'user', 'staff'] }).notNull(),
    authorId: text('author_id'),
    body: text('body').notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('support_messages_ticket_idx').on(t.ticketId, t.createdAt)],
);

export const addonAuditEvents = pgTable(
  'addon_audit_events',
  {
    id: uuid('id').notNull(), // chosen by the instance: with the instance, the idempotency key
    orgId: uuid('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    // Keys are revoked, never deleted; only an organization's deletion removes them (and its events).
    instanceKeyId: uuid('instance_key_id')
      .notNull()
      .references(() => instanceKeys.id, { onDelete: 'cascade' }),
    addon: text('addon').notNull(),
    action: text('action').notNull(),
    actor: text('actor'),
    occurredAt: ts('occurred_at').notNull(),
    details: jsonb('details').$type<Record<string, unknown>>(),
    receivedAt: ts('received_at').notNull().defaultNow(),
  },
  (t) => [
    // Per instance: another organization's instance can neither shadow an id nor learn that it is used.
    primaryKey({ name: 'addon_audit_events_pkey', columns: [t.instanceKeyId, t.id] }),
    index('addon_events_org_idx').on(t.orgId, t.occurredAt),
    index('addon_events_instance_idx').on(t.instanceKeyId, t.occurredAt),
  ],
);

/**
 * What each organization stores of the quota-bounded support data, maintained in the writing transaction
 * (server/domain/support/quotas.ts), so a write checks its quota without counting the rows. Rows only
 * ever leave with their organization, which takes this row with it.
 */
export const supportUsage = pgTable('support_usage', {
  orgId: uuid('org_id')
    .primaryKey()
    .references(() => organizations.id, { onDelete: 'cascade' }),
  tickets: integer('tickets').notNull().default(0),
  /** Customer messages (instances and organization members); staff replies are the Hub's own. */
  ticketMessages: integer('ticket_messages').notNull().default(0),
  addonEvents: integer('addon_events').notNull().default(0),
});

/** MCP proxy calls, recorded for the minter's organization. */
export const mcpCalls = pgTable(
  'mcp_calls',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    orgId: uuid('org_id').notNull(),
    tokenId: uuid('token_id').notNull(),
    instanceKeyId: uuid('instance_key_id').notNull(),
    userId: uuid('user_id').notNull(),
    method: text('method'),
    upstreamStatus: integer('upstream_status'),
    /** ok | refused_hub | refused_instance | upstream_error (server/domain/usage.ts); null on rows older than 0009. */
    outcome: text('outcome', { enum: ['ok', 'refused_hub', 'refused_instance', 'upstream_error'] }),
    createdAt: createdAt(),
  },
  (t) => [index('mcp_calls_org_idx').on(t.orgId, t.createdAt)],
);

// ---------------------------------------------------------------- daily rollups (server/domain/usage.ts)
// UTC days, written by the batched counters (never counted from the raw rows when a page renders); days
// older than the retention (400 days) are summed into one row per key at day 1970-01-01 ("earlier").

const day = () => date('day', { mode: 'string' }).notNull();

/** Keyed template reads with an instance key (the download counter), per template and day. */
export const templateDownloadsDaily = pgTable(
  'template_downloads_daily',
  {
    day: day(),
    templateId: uuid('template_id')
      .notNull()
      .references(() => templates.id, { onDelete: 'cascade' }),
    downloads: integer('downloads').notNull().default(0),
  },
  (t) => [
    primaryKey({ columns: [t.day, t.templateId] }),
    index('template_downloads_daily_template_idx').on(t.templateId),
  ],
);

/** What each instance key did on a day: keyed template reads, catalog polls and MCP calls by outcome. */
export const instanceUsageDaily = pgTable(
  'instance_usage_daily',
  {
    day: day(),
    instanceKeyId: uuid('instance_key_id')
      .notNull()
      .references(() => instanceKeys.id, { onDelete: 'cascade' }),
    orgId: uuid('org_id').notNull(),
    downloads: integer('downloads').notNull().default(0),
    polls: integer('polls').notNull().default(0),
    notModified: integer('not_modified').notNull().default(0),
    fullSyncs: integer('full_syncs').notNull().default(0),
    mcpOk: integer('mcp_ok').notNull().default(0),
    mcpRefusedHub: integer('mcp_refused_hub').notNull().default(0),
    mcpRefusedInstance: integer('mcp_refused_instance').notNull().default(0),
    mcpUpstreamError: integer('mcp_upstream_error').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.day, t.instanceKeyId] }), index('instance_usage_daily_org_idx').on(t.orgId, t.day)],
);

/** Per instance key: its last catalog poll and last successful (complete) sync. */
export const instanceSyncState = pgTable('instance_sync_state', {
  instanceKeyId: uuid('instance_key_id')
    .primaryKey()
    .references(() => instanceKeys.id, { onDelete: 'cascade' }),
  lastPollAt: ts('last_poll_at'),
  /** When the Hub last sent the instance a complete answer (has_more false, 200 or 304). */
  lastSyncAt: ts('last_sync_at'),
  /** That answer's checked_at: the instance's copy is current up to it. */
  lastCheckedAt: text('last_checked_at'),
  /** Shortest gap seen between two polls, in seconds: the instance's poll interval as the Hub observes it. */
  pollIntervalS: integer('poll_interval_s'),
});

/** Support tickets opened and closed per organization and day. */
export const ticketsDaily = pgTable(
  'tickets_daily',
  {
    day: day(),
    orgId: uuid('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    opened: integer('opened').notNull().default(0),
    closed: integer('closed').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.day, t.orgId] })],
);

/**
 * Rate-limit windows shared by every Hub process (server/api/rateLimit.ts): each process counts in
 * memory and adds its counts here a few times a second; the sum it reads back is the limit's view.
 */
export const rateLimitWindows = pgTable(
  'rate_limit_windows',
  {
    key: text('key').notNull(),
    windowStart: timestamp('window_start', { withTimezone: true, mode: 'date' }).notNull(),
    hits: integer('hits').notNull(),
  },
  (t) => [primaryKey({ columns: [t.key, t.windowStart] }), index('rate_limit_windows_start_idx').on(t.windowStart)],
);
