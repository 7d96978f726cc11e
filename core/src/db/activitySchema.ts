/**
 * Core's activity log and daily usage rollups (issue 21). Kept apart from schema.ts (re-exported there).
 */
import { bigint, bigserial, date, index, jsonb, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/**
 * One row per write, by anyone (a person, the temporary admin, a machine token; through the API or MCP),
 * inserted in the write's own transaction. `before`/`after` hold the changed fields, never a secret value.
 */
export const activity = pgTable(
  'activity',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    at: ts('at').notNull().defaultNow(),
    /** local, oidc, temporary_admin or machine_token. */
    actorKind: text('actor_kind').notNull(),
    /** The user id, the machine token id, or the temporary admin's username. */
    actorId: text('actor_id').notNull(),
    /** Email, username or token:<name>, as it was at the time. */
    actor: text('actor').notNull(),
    /** api (REST), mcp (Core's /mcp with a machine token) or hub_mcp (a person through the Hub's /mcp). */
    via: text('via').notNull(),
    /** <target type>.<verb>, e.g. user.update, secret.delete. */
    action: text('action').notNull(),
    targetType: text('target_type').notNull(),
    targetId: text('target_id').notNull(),
    targetName: text('target_name').notNull(),
    before: jsonb('before').$type<Record<string, unknown> | null>(),
    after: jsonb('after').$type<Record<string, unknown> | null>(),
  },
  (t) => [
    index('activity_at_idx').on(t.at, t.id),
    index('activity_target_idx').on(t.targetType, t.targetId, t.at),
    index('activity_actor_idx').on(t.actorId, t.at),
    index('activity_action_idx').on(t.action, t.at),
  ],
);

/**
 * Daily counters (UTC days, kept 400 days): machine-token requests per token and status class
 * (kind machine_token, key token id, class 2xx…5xx) and MCP tool calls per tool and outcome
 * (kind mcp_tool, key tool name, class ok/refused/error). Written beside the raw records, in the same
 * transaction, so that the overview never counts the raw tables.
 */
export const usageDaily = pgTable(
  'usage_daily',
  {
    day: date('day', { mode: 'string' }).notNull(),
    kind: text('kind', { enum: ['machine_token', 'mcp_tool'] }).notNull(),
    key: text('key').notNull(),
    class: text('class').notNull(),
    count: bigint('count', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.kind, t.day, t.key, t.class] })],
);
