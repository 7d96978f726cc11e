/**
 * Quotas on what an organization's instances may store on the Hub (support data): tickets, ticket
 * messages and addon audit events, counted per organization. A write that would go over answers 403
 * (reason quota_exceeded) naming the quota, and stores nothing. Checked under a per-organization
 * transaction lock, so concurrent writers cannot overshoot it together.
 *
 *   HUB_QUOTA_TICKETS          tickets per organization                 default 1000
 *   HUB_QUOTA_TICKET_MESSAGES  messages per organization (all tickets)  default 20000
 *   HUB_QUOTA_ADDON_EVENTS     addon audit events per organization      default 1000000
 */
import { count, eq, sql } from 'drizzle-orm';
import type { Tx } from '../../db/client';
import { addonAuditEvents, supportMessages, supportTickets } from '../../db/schema';
import { DomainError } from '../errors';

export type Quota = 'tickets' | 'ticket_messages' | 'addon_events';

const SETTINGS: Record<Quota, { env: string; fallback: number; what: string }> = {
  tickets: { env: 'HUB_QUOTA_TICKETS', fallback: 1000, what: 'support tickets' },
  ticket_messages: { env: 'HUB_QUOTA_TICKET_MESSAGES', fallback: 20_000, what: 'ticket messages' },
  addon_events: { env: 'HUB_QUOTA_ADDON_EVENTS', fallback: 1_000_000, what: 'addon audit events' },
};

export function quotaOf(quota: Quota): number {
  const n = Number(process.env[SETTINGS[quota].env]);
  return Number.isInteger(n) && n > 0 ? n : SETTINGS[quota].fallback;
}

async function stored(tx: Tx, quota: Quota, orgId: string): Promise<number> {
  const [row] =
    quota === 'tickets'
      ? await tx.select({ n: count() }).from(supportTickets).where(eq(supportTickets.orgId, orgId))
      : quota === 'ticket_messages'
        ? await tx
            .select({ n: count() })
            .from(supportMessages)
            .innerJoin(supportTickets, eq(supportTickets.id, supportMessages.ticketId))
            .where(eq(supportTickets.orgId, orgId))
        : await tx.select({ n: count() }).from(addonAuditEvents).where(eq(addonAuditEvents.orgId, orgId));
  return row?.n ?? 0;
}

/** Refuses (403) unless `adding` more items fit in the organization's quota; call inside the write's transaction. */
export async function checkQuota(tx: Tx, quota: Quota, orgId: string, adding: number): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`quota:${quota}:${orgId}`}))`);
  const limit = quotaOf(quota);
  const used = await stored(tx, quota, orgId);
  if (used + adding > limit) {
    throw new DomainError(
      'forbidden',
      `This organization has reached its quota of ${limit} ${SETTINGS[quota].what} (${used} stored, ${adding} more sent); ask the Hub's operator to raise ${SETTINGS[quota].env}`,
      { reason: 'quota_exceeded' },
    );
  }
}
