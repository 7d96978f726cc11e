/**
 * What an instance reports about itself (version, base URL, MCP URL, hostname) and the views built on it:
 * the instance's own info, and the dashboard list of instances with their report and DNS record.
 * instance_reports.mcp_url is the instance's MCP endpoint URL; the MCP proxy forwards to it.
 */
import { DomainError } from '../errors';
import { and, asc, count, desc, eq, isNotNull, sql, type SQL } from 'drizzle-orm';
import { getDb } from '../../db/client';
import { dnsRecords, instanceKeys, instanceReports, organizations } from '../../db/schema';
import { writeAudit } from '../audit';
import { announceChange } from '../../db/invalidation';
import type { InstancePrincipal } from '../principal';
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
  if (!row) throw new DomainError('unauthenticated', 'Unknown instance key');
  return row;
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

/** Records a report: absent fields keep their value, null clears one. Audited when something changed. */
export async function reportInstance(
  instance: InstancePrincipal,
  input: InstanceReportInput,
): Promise<InstanceInfoRow> {
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
    await tx
      .insert(instanceReports)
      .values({ instanceKeyId: instance.keyId, ...next, reportedAt: sql`now()` })
      .onConflictDoUpdate({ target: instanceReports.instanceKeyId, set: { ...next, reportedAt: sql`now()` } });
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

/** Keeps only a record that is not being deleted (DELETE leaves a tombstone until the DNS server has dropped it). */
export const liveDns = (row: InstanceInfoRow) => (row.dnsHostname && !row.dnsDeletedAt ? row : null);

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
