/**
 * Quotas on what an organization's instances may store on the Hub (support data): tickets, ticket
 * messages and addon audit events, counted per organization in `support_usage` by the writes themselves
 * (no count of the rows per write). A write that would go over answers 403 (reason quota_exceeded)
 * naming the quota, and stores nothing.
 *
 *   HUB_QUOTA_TICKETS          tickets per organization                                 default 1000
 *   HUB_QUOTA_TICKET_MESSAGES  customer messages per organization (all tickets)         default 20000
 *   HUB_QUOTA_ADDON_EVENTS     addon audit events per organization                      default 1000000
 */
import { eq, sql } from 'drizzle-orm';
import type { Tx } from '../../db/client';
import { supportUsage } from '../../db/schema';
import { ServiceError } from '../errors';
import { config, type Quota } from '../../config';

export type { Quota };

/** Each quota's variable (named by the refusal; its value is in server/config.ts), wording and usage column. */
const SETTINGS: Record<Quota, { env: string; what: string; column: 'tickets' | 'ticketMessages' | 'addonEvents' }> = {
  tickets: { env: 'HUB_QUOTA_TICKETS', what: 'support tickets', column: 'tickets' },
  ticket_messages: { env: 'HUB_QUOTA_TICKET_MESSAGES', what: 'ticket messages', column: 'ticketMessages' },
  addon_events: { env: 'HUB_QUOTA_ADDON_EVENTS', what: 'addon audit events', column: 'addonEvents' },
};

export function quotaOf(quota: Quota): number {
  return config.quotas[quota];
}

/**
 * Counts `adding` more items against the organization's quota, inside the write's transaction (so a
 * refused or failed write counts nothing), or refuses (403) when they do not fit. The usage row is locked
 * by the update until the transaction ends: concurrent writers of one organization take turns.
 */
export async function useQuota(tx: Tx, quota: Quota, orgId: string, adding: number): Promise<void> {
  if (adding === 0) return;
  const { column, what, env } = SETTINGS[quota];
  const limit = quotaOf(quota);
  const used = supportUsage[column];
  await tx.insert(supportUsage).values({ orgId }).onConflictDoNothing();
  const [row] = await tx
    .update(supportUsage)
    .set({ [column]: sql`${used} + ${adding}` })
    .where(eq(supportUsage.orgId, orgId))
    .returning({ used });
  if (row!.used > limit) {
    throw new ServiceError(
      'forbidden',
      `This organization has reached its quota of ${limit} ${what} (${row!.used - adding} stored, ${adding} more sent); ask the Hub's operator to raise ${env}`,
      {
        reason: 'quota_exceeded',
      },
    );
  }
}
