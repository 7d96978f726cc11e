/**
 * What an instance reports about itself (version, base URL, MCP URL, hostname) and the views built on it:
 * the instance's own info, and the dashboard list of instances with their report and DNS record.
 * instance_reports.mcp_url is the instance's MCP endpoint URL; the MCP proxy forwards to it.
 */
import { ServiceError } from '../errors';
import { config } from '../../config';
import { and, asc, count, desc, eq, isNotNull, sql, type SQL } from 'drizzle-orm';
import { getDb } from '../../db/client';
import { dnsRecords, instanceKeys, instanceReports, organizations, type InstanceUrlChange } from '../../db/schema';
import { writeAudit } from '../audit';
import { announceChange } from '../../db/invalidation';
import type { InstancePrincipal, UserPrincipal } from '../principal';
import { paginate } from '../paginate';
import { ensureDnsPublisher } from './dnsPublisher';

const infoColumns = {
  id: instanceKeys.id,
  name: instanceKeys.name,
  keyPrefix: instanceKeys.keyPrefix,
  status: instanceKeys.status,
  lastUsedAt: instanceKeys.lastUsedAt,
  createdAt: instanceKeys.createdAt,
  org: {
    id: organizations.id,
    name: organizations.name,
    slug: organizations.slug,
    tier: organizations.tier,
    status: organizations.status,
  },
  reportVersion: instanceReports.version,
  reportBaseUrl: instanceReports.baseUrl,
  reportMcpUrl: instanceReports.mcpUrl,
  reportHostname: instanceReports.hostname,
  reportedAt: instanceReports.reportedAt,
  dnsHostname: dnsRecords.hostname,
  dnsIp: dnsRecords.ip,
  dnsUpdatedAt: dnsRecords.updatedAt,
  dnsPublishState: dnsRecords.publishState,
  dnsPublishError: dnsRecords.publishError,
  dnsPublishAttempts: dnsRecords.publishAttempts,
  dnsPublishNextAt: dnsRecords.publishNextAt,
  dnsPublishedAt: dnsRecords.publishedAt,
  dnsDeletedAt: dnsRecords.deletedAt,
};

export type InstanceInfoRow = Awaited<ReturnType<typeof selectInstances>>[number];

function selectInstances(where: SQL | undefined, window?: { limit: number; offset: number }) {
  return getDb().then((db) => {
    const query = db
      .select(infoColumns)
      .from(instanceKeys)
      .innerJoin(organizations, eq(organizations.id, instanceKeys.orgId))
      .leftJoin(instanceReports, eq(instanceReports.instanceKeyId, instanceKeys.id))
      .leftJoin(dnsRecords, eq(dnsRecords.instanceKeyId, instanceKeys.id))
      .where(where)
      .orderBy(desc(instanceKeys.createdAt), desc(instanceKeys.id));
    return window ? query.limit(window.limit).offset(window.offset) : query;
  });
}

export async function getInstanceInfo(keyId: string): Promise<InstanceInfoRow> {
  ensureDnsPublisher();
  const [row] = await selectInstances(eq(instanceKeys.id, keyId));
  if (!row) throw new ServiceError('unauthenticated', 'Unknown instance key');
  return row;
}

const LOOPBACK_HOST = /^(localhost|\[::1\]|127\.\d{1,3}\.\d{1,3}\.\d{1,3})$/i;

/**
 * Why an MCP URL may not be used, or null: plain http:// to a host other than loopback (127.0.0.0/8, ::1,
 * localhost) would carry every proxied call, the person's assertion and the secret values in the answers in
 * clear, unless the operator allowed it (HUB_ALLOW_INSECURE_MCP_URL=true, a private network they trust).
 */
export function insecureMcpUrl(url: string | URL): string | null {
  if (config.allowInsecureMcpUrl) return null;
  let parsed: URL;
  try {
    parsed = typeof url === 'string' ? new URL(url) : url;
  } catch {
    return null; // not a URL at all: the input schema answers that
  }
  if (parsed.protocol !== 'http:') return null;
  const host = parsed.hostname;
  if (LOOPBACK_HOST.test(host)) return null;
  return (
    'mcp_url: plain http:// is accepted only for a loopback host (127.0.0.0/8, ::1, localhost): the MCP calls and the ' +
    'secret values in their answers would cross the network in clear. Serve the instance over https:// and report ' +
    'that URL (Core: set CORE_URL to its https address), or ask the Hub operator to allow plain http on a private ' +
    'network with HUB_ALLOW_INSECURE_MCP_URL=true'
  );
}

export interface InstanceReportInput {
  version?: string | null;
  base_url?: string | null;
  mcp_url?: string | null;
  hostname?: string | null;
}

const FIELDS = [
  ['version', 'version'],
  ['base_url', 'baseUrl'],
  ['mcp_url', 'mcpUrl'],
  ['hostname', 'hostname'],
] as const;

/** Unacknowledged URL changes kept per instance (the newest): enough to see what happened, bounded per row. */
export const URL_CHANGES_KEPT = 20;

/**
 * Records a report: absent fields keep their value, null clears one. Audited when something changed. A change of
 * mcp_url or base_url is audited on its own (instance.url_change: the instance, the old and new URL, the key secret
 * that made it), and it stays on the instance's health row (instance_reports.url_changes) until an organization
 * admin acknowledges it (acknowledgeUrlChanges): a re-issued key pointing the instance's MCP URL elsewhere is seen,
 * not silent, also when it first clears the URL. The first report of an instance is in instance.report only.
 */
export async function reportInstance(
  instance: InstancePrincipal,
  input: InstanceReportInput,
): Promise<InstanceInfoRow> {
  const insecure = input.mcp_url ? insecureMcpUrl(input.mcp_url) : null;
  if (insecure) throw new ServiceError('invalid', insecure);
  const db = await getDb();
  await db.transaction(async (tx) => {
    const [current] = await tx
      .select()
      .from(instanceReports)
      .where(eq(instanceReports.instanceKeyId, instance.keyId))
      .for('update');
    const next = {
      version: current?.version ?? null,
      baseUrl: current?.baseUrl ?? null,
      mcpUrl: current?.mcpUrl ?? null,
      hostname: current?.hostname ?? null,
    };
    const changed: (keyof InstanceReportInput)[] = [];
    for (const [field, column] of FIELDS) {
      const value = input[field];
      if (value === undefined || value === next[column]) continue;
      next[column] = value;
      changed.push(field);
    }
    // Any change of a URL once the instance has reported (cleared, or set again after a clear: a key that clears
    // mcp_url and then sets it elsewhere is seen too); the first report is in instance.report only.
    const column = { mcp_url: 'mcpUrl', base_url: 'baseUrl' } as const;
    const urlChanges = current
      ? changed.filter((f): f is 'mcp_url' | 'base_url' => f === 'mcp_url' || f === 'base_url')
      : [];
    let pending = current?.urlChanges ?? null;
    if (urlChanges.length > 0) {
      const [key] = await tx
        .select({ name: instanceKeys.name, keyPrefix: instanceKeys.keyPrefix })
        .from(instanceKeys)
        .where(eq(instanceKeys.id, instance.keyId));
      const at = new Date().toISOString();
      const shown = urlChanges.map((f): InstanceUrlChange => ({
        at,
        field: f,
        from: current![column[f]],
        to: next[column[f]],
        key_prefix: key!.keyPrefix,
      }));
      pending = [...(pending ?? []), ...shown].slice(-URL_CHANGES_KEPT);
      await writeAudit(tx, {
        actor: instance,
        action: 'instance.url_change',
        targetType: 'instance_key',
        targetId: instance.keyId,
        orgId: instance.orgId,
        details: {
          instance_name: key!.name,
          key_id: instance.keyId,
          key_prefix: key!.keyPrefix,
          changes: Object.fromEntries(shown.map((c) => [c.field, { from: c.from, to: c.to }])),
        },
      });
    }
    await tx
      .insert(instanceReports)
      .values({ instanceKeyId: instance.keyId, ...next, urlChanges: pending, reportedAt: sql`now()` })
      .onConflictDoUpdate({
        target: instanceReports.instanceKeyId,
        set: { ...next, urlChanges: pending, reportedAt: sql`now()` },
      });
    // Cached token look-ups of the MCP proxy carry the instance's MCP URL (domain/pats.ts).
    if (changed.includes('mcp_url')) await announceChange(tx, 'auth');
    if (changed.length > 0 || !current) {
      await writeAudit(tx, {
        actor: instance,
        action: 'instance.report',
        targetType: 'instance_key',
        targetId: instance.keyId,
        orgId: instance.orgId,
        details: { changed, ...Object.fromEntries(changed.map((f) => [f, input[f]])) },
      });
    }
  });
  return getInstanceInfo(instance.keyId);
}

export type InstanceScope = { kind: 'admin'; orgId?: string } | { kind: 'org'; orgId: string };

export interface InstanceFilters {
  publishState?: 'published' | 'pending' | 'failed' | 'local';
  orgId?: string;
}

/** Instances with their report and DNS record: platform admins all (optionally one org), members their org. */
export async function listInstances(
  scope: InstanceScope,
  filters: InstanceFilters,
  page: { page: number; limit: number },
) {
  ensureDnsPublisher();
  const conditions: SQL[] = [];
  const orgId = scope.kind === 'org' ? scope.orgId : filters.orgId;
  if (orgId) conditions.push(eq(instanceKeys.orgId, orgId));
  if (filters.publishState) conditions.push(eq(dnsRecords.publishState, filters.publishState));
  const where = conditions.length > 0 ? and(...conditions) : undefined;
  const db = await getDb();
  return paginate(
    page,
    (window) => selectInstances(where, window),
    () =>
      db
        .select({ n: count() })
        .from(instanceKeys)
        .leftJoin(dnsRecords, eq(dnsRecords.instanceKeyId, instanceKeys.id))
        .where(where),
  );
}

/** The base URLs an organization's active instances reported (for the template page's Core snippet), by name. */
export async function orgInstanceUrls(orgId: string): Promise<{ name: string; baseUrl: string }[]> {
  const db = await getDb();
  const rows = await db
    .select({ name: instanceKeys.name, baseUrl: instanceReports.baseUrl })
    .from(instanceKeys)
    .innerJoin(instanceReports, eq(instanceReports.instanceKeyId, instanceKeys.id))
    .where(and(eq(instanceKeys.orgId, orgId), eq(instanceKeys.status, 'active'), isNotNull(instanceReports.baseUrl)))
    .orderBy(asc(instanceKeys.name))
    .limit(20);
  return rows.map((r) => ({ name: r.name, baseUrl: r.baseUrl! }));
}

/**
 * An organization admin has seen the instance's URL changes (its health row): those up to `through` (the time of
 * the newest change they were shown) are cleared; a change that arrived meanwhile stays. Audited with what was
 * acknowledged. 404 for an instance of another organization.
 */
export async function acknowledgeUrlChanges(
  admin: UserPrincipal,
  orgId: string,
  instanceId: string,
  through: Date,
): Promise<{ remaining: number }> {
  const db = await getDb();
  return db.transaction(async (tx) => {
    const [key] = await tx
      .select({ name: instanceKeys.name })
      .from(instanceKeys)
      .where(and(eq(instanceKeys.id, instanceId), eq(instanceKeys.orgId, orgId)));
    if (!key) throw new ServiceError('not_found', `instance_id: no instance ${instanceId} in your organization`);
    const [report] = await tx
      .select({ urlChanges: instanceReports.urlChanges })
      .from(instanceReports)
      .where(eq(instanceReports.instanceKeyId, instanceId))
      .for('update');
    const changes = report?.urlChanges ?? [];
    const seen = changes.filter((c) => new Date(c.at).getTime() <= through.getTime());
    const left = changes.filter((c) => new Date(c.at).getTime() > through.getTime());
    if (seen.length === 0) return { remaining: left.length };
    await tx
      .update(instanceReports)
      .set({ urlChanges: left.length > 0 ? left : null })
      .where(eq(instanceReports.instanceKeyId, instanceId));
    await writeAudit(tx, {
      actor: admin,
      action: 'instance.url_change_acknowledge',
      targetType: 'instance_key',
      targetId: instanceId,
      orgId,
      details: {
        instance_name: key.name,
        acknowledged: seen.map((c) => ({ at: c.at, field: c.field, from: c.from, to: c.to, key_prefix: c.key_prefix })),
      },
    });
    return { remaining: left.length };
  });
}
