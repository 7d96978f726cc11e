/**
 * Addon audit events shipped by instances. The event id is chosen by the instance and, with the instance,
 * is the idempotency key: a batch is one `insert … on conflict (instance, id) do nothing`, so re-sending it
 * (also concurrently) stores nothing twice and reports the repeats as duplicates. Another instance's ids
 * never collide with these, so no organization can shadow or probe another's events. Browsing: platform
 * admins everything, organization admins their organization's events; newest first (occurred_at, then id,
 * then instance).
 */
import { ServiceError } from '../errors';
import { and, count, desc, eq, gte, lt, or, type SQL } from 'drizzle-orm';
import { getDb } from '../../db/client';
import { addonAuditEvents, instanceKeys, organizations } from '../../db/schema';
import { paginate } from '../paginate';
import { useQuota } from './quotas';
import { isPlatformAdmin, type InstancePrincipal, type Principal } from '../principal';

export interface AddonEventInput {
  id: string;
  addon: string;
  action: string;
  actor?: string | null;
  occurred_at: string;
  details?: Record<string, unknown> | null;
}

export async function ingestAddonEvents(instance: InstancePrincipal, events: AddonEventInput[]) {
  const db = await getDb();
  return db.transaction(async (tx) => {
    const inserted = await tx
      .insert(addonAuditEvents)
      .values(
        events.map((e) => ({
          id: e.id.toLowerCase(),
          orgId: instance.orgId,
          instanceKeyId: instance.keyId,
          addon: e.addon,
          action: e.action,
          actor: e.actor ?? null,
          occurredAt: new Date(e.occurred_at),
          details: e.details ?? null,
        })),
      )
      .onConflictDoNothing({ target: [addonAuditEvents.instanceKeyId, addonAuditEvents.id] })
      .returning({ id: addonAuditEvents.id });
    // Only new events count (re-sent ids store nothing); over the quota, the insert is rolled back whole.
    await useQuota(tx, 'addon_events', instance.orgId, inserted.length);
    return { accepted: inserted.length, duplicates: events.length - inserted.length };
  });
}

export type AddonEventScope = { kind: 'admin' } | { kind: 'org'; orgId: string };

/** Who may browse which events: platform admins all, organization admins their organization's. */
export function addonEventScopeOf(p: Principal): AddonEventScope {
  if (p.kind === 'anonymous') throw new ServiceError('unauthenticated', 'Sign in required');
  if (p.kind !== 'user') throw new ServiceError('forbidden', 'This view needs a user session or Hub JWT');
  if (isPlatformAdmin(p)) return { kind: 'admin' };
  if (p.orgId && p.orgRole === 'admin') return { kind: 'org', orgId: p.orgId };
  throw new ServiceError('forbidden', 'Only organization admins and platform admins may browse addon events');
}

export interface AddonEventFilters {
  /** Platform admins only; an organization admin always sees just their organization. */
  orgId?: string;
  instanceId?: string;
  addon?: string;
  action?: string;
  /** occurred_at ≥ since */
  since?: Date;
  /** occurred_at < until */
  until?: Date;
}

function conditions(scope: AddonEventScope, f: AddonEventFilters): SQL[] {
  const c: SQL[] = [];
  if (scope.kind === 'org') c.push(eq(addonAuditEvents.orgId, scope.orgId));
  else if (f.orgId) c.push(eq(addonAuditEvents.orgId, f.orgId));
  if (f.instanceId) c.push(eq(addonAuditEvents.instanceKeyId, f.instanceId));
  if (f.addon) c.push(eq(addonAuditEvents.addon, f.addon));
  if (f.action) c.push(eq(addonAuditEvents.action, f.action));
  if (f.since) c.push(gte(addonAuditEvents.occurredAt, f.since));
  if (f.until) c.push(lt(addonAuditEvents.occurredAt, f.until));
  return c;
}

const columns = {
  id: addonAuditEvents.id,
  orgId: addonAuditEvents.orgId,
  orgSlug: organizations.slug,
  orgName: organizations.name,
  instanceId: addonAuditEvents.instanceKeyId,
  instanceName: instanceKeys.name,
  addon: addonAuditEvents.addon,
  action: addonAuditEvents.action,
  actor: addonAuditEvents.actor,
  occurredAt: addonAuditEvents.occurredAt,
  receivedAt: addonAuditEvents.receivedAt,
  details: addonAuditEvents.details,
};

export type AddonEventRow = Awaited<ReturnType<typeof selectPage>>[number];

async function selectPage(where: SQL | undefined, limit: number, offset = 0) {
  const db = await getDb();
  return db
    .select(columns)
    .from(addonAuditEvents)
    .innerJoin(organizations, eq(organizations.id, addonAuditEvents.orgId))
    .leftJoin(instanceKeys, eq(instanceKeys.id, addonAuditEvents.instanceKeyId))
    .where(where)
    .orderBy(desc(addonAuditEvents.occurredAt), desc(addonAuditEvents.id), desc(addonAuditEvents.instanceKeyId))
    .limit(limit)
    .offset(offset);
}

export async function listAddonEvents(
  scope: AddonEventScope,
  filters: AddonEventFilters,
  page: { page: number; limit: number },
) {
  const c = conditions(scope, filters);
  const where = c.length > 0 ? and(...c) : undefined;
  const db = await getDb();
  return paginate(
    page,
    (window) => selectPage(where, window.limit, window.offset),
    () => db.select({ n: count() }).from(addonAuditEvents).where(where),
  );
}

/** Every matching event, newest first, read in batches by keyset (for exports of any size). */
export async function* iterateAddonEvents(
  scope: AddonEventScope,
  filters: AddonEventFilters,
  batch = 1000,
): AsyncGenerator<AddonEventRow> {
  const base = conditions(scope, filters);
  let after: AddonEventRow | null = null;
  for (;;) {
    const c = [...base];
    if (after) {
      c.push(
        or(
          lt(addonAuditEvents.occurredAt, after.occurredAt),
          and(
            eq(addonAuditEvents.occurredAt, after.occurredAt),
            or(
              lt(addonAuditEvents.id, after.id),
              and(eq(addonAuditEvents.id, after.id), lt(addonAuditEvents.instanceKeyId, after.instanceId)),
            ),
          ),
        )!,
      );
    }
    const rows = await selectPage(c.length > 0 ? and(...c) : undefined, batch);
    yield* rows;
    if (rows.length < batch) return;
    after = rows[rows.length - 1]!;
  }
}
