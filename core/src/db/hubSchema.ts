/**
 * Core's tables for the Hub connection (issue 11): the connection and its sync state, the local copy
 * of the catalog, deployments (desired state) and the record of MCP tool calls. Kept apart from
 * schema.ts (re-exported there) so the two halves of Core change independently.
 */
import { sql } from 'drizzle-orm';
import { bigserial, boolean, index, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/**
 * The one Hub connection (a single row, id = 'hub'). The instance key is sealed (AES-256-GCM under
 * the master secret) and never leaves Core again; with CORE_HUB_* in the environment the key is not
 * stored at all and this row only holds the sync state.
 */
export const hubConnection = pgTable('hub_connection', {
  id: text('id').primaryKey().default('hub'),
  hubUrl: text('hub_url').notNull(),
  sealedKey: text('sealed_key'),
  keyPrefix: text('key_prefix').notNull(),
  /** The instance key's id as the Hub states it: the audience of the Hub's MCP assertions. */
  /** Null until the Hub first answered (a connection from the environment while the Hub is down). */
  instanceId: uuid('instance_id'),
  organization: jsonb('organization').$type<{ id: string; name: string; slug: string }>(),
  /** Changes on every (re)connection: a sync started under an older connection never applies its answer. */
  connectedAt: ts('connected_at').notNull().defaultNow(),
  /** The Hub's checked_at of the last applied sync: the next `since`. Null until the first full sync. */
  checkedAt: text('checked_at'),
  /** ETag of the last updates answer, for If-None-Match. */
  etag: text('etag'),
  lastSyncAt: ts('last_sync_at'),
  lastError: text('last_error'),
  lastErrorAt: ts('last_error_at'),
  /** The Hub refused the key (401): syncing stops until the key is replaced. */
  keyRefused: boolean('key_refused').notNull().default(false),
});

/** The local copy of the templates this instance's key sees at the Hub. `data` is the Hub's Template object. */
export const catalogTemplates = pgTable(
  'catalog_templates',
  {
    id: uuid('id').primaryKey(),
    slug: text('slug').notNull(),
    name: text('name').notNull(),
    description: text('description').notNull(),
    categorySlug: text('category_slug').notNull(),
    data: jsonb('data').$type<Record<string, unknown>>().notNull(),
    updatedAt: text('updated_at').notNull(),
    syncedAt: ts('synced_at').notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('catalog_templates_slug_idx').on(t.slug),
    index('catalog_templates_category_idx').on(t.categorySlug),
  ],
);

/**
 * Desired state of a deployment: the template snapshot it runs, its variables, whether it should run, the
 * host ports the admin chose. The reconciler (domain/reconciler.ts) makes the engine match it.
 */
export const deployments = pgTable(
  'deployments',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    name: text('name').notNull(),
    /** The template's Hub id: a deployment survives its template leaving the catalog (status template_missing). */
    templateId: uuid('template_id').notNull(),
    templateSlug: text('template_slug').notNull(),
    templateVersion: text('template_version').notNull(),
    /** Literal values only; variables bound to a secret are rows of deployment_secret_bindings. */
    env: jsonb('env').$type<Record<string, string>>().notNull(),
    /** Secrets mounted as files (not environment variables); bindings of variables are not listed here. */
    secretRefs: jsonb('secret_refs').$type<string[]>().notNull(),
    /** running or stopped: what the reconciler converges the container to. */
    desiredState: text('desired_state', { enum: ['running', 'stopped'] })
      .notNull()
      .default('running'),
    /** The Hub's Template object as it was deployed: a catalog sync never changes what runs (apply-update does). */
    templateSnapshot: jsonb('template_snapshot').$type<Record<string, unknown>>(),
    /** Host ports chosen by the admin per container port; ports not listed get one assigned by the engine. */
    hostPorts: jsonb('host_ports')
      .$type<{ container_port: number; protocol: 'tcp' | 'udp'; host_port: number }[]>()
      .notNull()
      .default(sql`'[]'::jsonb`),
    createdBy: text('created_by').notNull(),
    createdAt: ts('created_at').notNull().defaultNow(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('deployments_name_idx').on(sql`lower(${t.name})`),
    index('deployments_template_idx').on(t.templateId),
  ],
);

/** One row per MCP tool call: who, which tool, the outcome. Never arguments or results (they may hold secrets). */
export const mcpToolCalls = pgTable(
  'mcp_tool_calls',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    at: ts('at').notNull().defaultNow(),
    /** hub (a person through the Hub's /mcp) or machine_token. */
    via: text('via').notNull(),
    actor: text('actor').notNull(),
    userId: uuid('user_id'),
    /** The Hub's personal access token id, or the Core machine token id. */
    tokenId: text('token_id'),
    tool: text('tool').notNull(),
    outcome: text('outcome', { enum: ['ok', 'refused', 'error'] }).notNull(),
    message: text('message'),
  },
  (t) => [index('mcp_tool_calls_at_idx').on(t.at)],
);
