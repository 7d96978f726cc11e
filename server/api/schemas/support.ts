/** Request and response shapes of the instance support surface (issue 6) and the row → JSON mappings. */
import { z } from 'zod';
import { isoDateTime } from './query';
import type { AddonEventRow } from '../../domain/support/addonEvents';
import type { DnsRecordRow } from '../../domain/support/dns';
import type { InstanceInfoRow } from '../../domain/support/instances';

const iso = (d: Date | string) => new Date(d).toISOString();
const isoOrNull = (d: Date | string | null) => (d === null ? null : iso(d));

// ---------------------------------------------------------------- input building blocks

// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f]/;
export const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** PostgreSQL text and jsonb refuse NUL characters and unpaired surrogates: refuse them here, as a 400. */
const storable = (s: string) => !s.includes('\u0000') && !LONE_SURROGATE.test(s);

/** A one-line name: trimmed, no control characters. */
export const lineText = (max: number) =>
  z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .max(max, `must be at most ${max} characters`)
    .refine((s) => !CONTROL.test(s) && storable(s), 'must not contain control characters');

/** Free text (newlines and tabs allowed), at least one visible character. */
export const longText = (max: number) =>
  z
    .string()
    .max(max, `must be at most ${max} characters`)
    .refine((s) => s.trim().length > 0, 'must not be empty')
    .refine(storable, 'must not contain NUL characters or unpaired surrogates');

const MAX_JSON_DEPTH = 32;

function jsonProblem(value: unknown, depth = 0): string | null {
  if (depth > MAX_JSON_DEPTH) return `must not be nested deeper than ${MAX_JSON_DEPTH} levels`;
  if (typeof value === 'string')
    return storable(value) ? null : 'strings must not contain NUL characters or unpaired surrogates';
  if (value === null || typeof value !== 'object') return null;
  for (const [key, inner] of Object.entries(value)) {
    if (!storable(key)) return 'keys must not contain NUL characters or unpaired surrogates';
    const problem = jsonProblem(inner, depth + 1);
    if (problem) return problem;
  }
  return null;
}

/** A JSON object whose serialized form is at most `maxBytes` bytes of UTF-8. */
export const jsonObject = (maxBytes: number, label: string) =>
  z.record(z.string(), z.unknown(), { error: 'must be a JSON object' }).superRefine((value, ctx) => {
    const problem = jsonProblem(value);
    if (problem) {
      ctx.addIssue({ code: 'custom', message: problem });
      return;
    }
    const bytes = Buffer.byteLength(JSON.stringify(value), 'utf8');
    if (bytes > maxBytes)
      ctx.addIssue({ code: 'custom', message: `must be at most ${label} serialized (got ${bytes} bytes)` });
  });

export const MAX_URL_LENGTH = 2048;

/** An absolute http(s) URL without credentials, at most 2,048 characters. */
export const httpUrl = () =>
  z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .max(MAX_URL_LENGTH, `must be at most ${MAX_URL_LENGTH} characters`)
    .superRefine((value, ctx) => {
      let url: URL;
      try {
        url = new URL(value);
      } catch {
        ctx.addIssue({ code: 'custom', message: 'must be an absolute URL' });
        return;
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:')
        ctx.addIssue({ code: 'custom', message: 'must use http or https' });
      else if (url.username || url.password) ctx.addIssue({ code: 'custom', message: 'must not contain credentials' });
      else if (CONTROL.test(value) || /\s/.test(value))
        ctx.addIssue({ code: 'custom', message: 'must not contain spaces or control characters' });
    });

/** A DNS host name as an instance knows itself (e.g. core.example.com). */
export const hostName = () =>
  z
    .string()
    .trim()
    .max(253, 'must be at most 253 characters')
    .regex(
      /^(?=.{1,253}$)([a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)(\.[a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*\.?$/,
      'must be a DNS host name',
    );

export const TicketSeverity = z.enum(['low', 'normal', 'high', 'urgent']);
export const TicketStatus = z.enum(['open', 'pending', 'closed']);
export const PublishState = z.enum(['published', 'pending', 'failed', 'local']);

// ---------------------------------------------------------------- instance info

const ReportedSchema = z.object({
  version: z.string().nullable(),
  base_url: z.string().nullable(),
  mcp_url: z.string().nullable(),
  hostname: z.string().nullable(),
  reported_at: z.string(),
});

export const InstanceInfoSchema = z.object({
  instance: z.object({
    id: z.uuid(),
    name: z.string(),
    key_prefix: z.string(),
    status: z.string(),
    last_used_at: z.string().nullable(),
    organization: z.object({ id: z.uuid(), name: z.string(), slug: z.string(), tier: z.string(), status: z.string() }),
    reported: ReportedSchema.nullable(),
    dns: z.object({ hostname: z.string(), ip: z.string(), updated_at: z.string() }).nullable(),
  }),
});

function reported(row: InstanceInfoRow) {
  return row.reportedAt
    ? {
        version: row.reportVersion,
        base_url: row.reportBaseUrl,
        mcp_url: row.reportMcpUrl,
        hostname: row.reportHostname,
        reported_at: iso(row.reportedAt),
      }
    : null;
}

export function toInstanceInfo(row: InstanceInfoRow): z.infer<typeof InstanceInfoSchema> {
  return {
    instance: {
      id: row.id,
      name: row.name,
      key_prefix: row.keyPrefix,
      status: row.status,
      last_used_at: isoOrNull(row.lastUsedAt),
      organization: row.org,
      reported: reported(row),
      dns:
        row.dnsHostname && row.dnsIp && row.dnsUpdatedAt && !row.dnsDeletedAt
          ? { hostname: row.dnsHostname, ip: row.dnsIp, updated_at: iso(row.dnsUpdatedAt) }
          : null,
    },
  };
}

// ---------------------------------------------------------------- dns

export const DnsRecordSchema = z.object({
  hostname: z.string(),
  ip: z.string(),
  updated_at: z.string(),
  publish_state: PublishState.describe(
    'published: on the DNS server; pending: being published (retried in the background); failed: retries ' +
      'exhausted, admins are notified in the dashboard; local: kept in the Hub only (HUB_DNS_PROVIDER=none)',
  ),
});

export function toDnsRecord(row: DnsRecordRow): z.infer<typeof DnsRecordSchema> {
  return { hostname: row.hostname, ip: row.ip, updated_at: iso(row.updatedAt), publish_state: row.publishState };
}

// ---------------------------------------------------------------- tickets

export const TicketCreatedSchema = z.object({
  id: z.uuid(),
  number: z.number().int(),
  subject: z.string(),
  status: TicketStatus,
  severity: TicketSeverity,
  created_at: z.string(),
});

export const TicketSummarySchema = TicketCreatedSchema.extend({
  updated_at: z.string(),
  message_count: z.number().int(),
});

export const MessageSchema = z.object({
  id: z.uuid(),
  author: z.object({ type: z.enum(['instance', 'user', 'staff']), name: z.string() }),
  body: z.string(),
  created_at: z.string(),
});

export const TicketDetailSchema = TicketSummarySchema.extend({
  body: z.string(),
  diagnostics: z.record(z.string(), z.unknown()).nullable(),
  messages: z.array(MessageSchema),
});

type TicketRowLike = {
  id: string;
  number: number;
  subject: string;
  status: 'open' | 'pending' | 'closed';
  severity: 'low' | 'normal' | 'high' | 'urgent';
  createdAt: Date;
  updatedAt: Date;
  messageCount: number;
};

export function toTicketSummary(row: TicketRowLike): z.infer<typeof TicketSummarySchema> {
  return {
    id: row.id,
    number: Number(row.number),
    subject: row.subject,
    status: row.status,
    severity: row.severity,
    created_at: iso(row.createdAt),
    updated_at: iso(row.updatedAt),
    message_count: Number(row.messageCount),
  };
}

type MessageRowLike = {
  id: string;
  authorType: 'instance' | 'user' | 'staff';
  authorName: string;
  body: string;
  createdAt: Date;
};

export function toMessage(m: MessageRowLike): z.infer<typeof MessageSchema> {
  return { id: m.id, author: { type: m.authorType, name: m.authorName }, body: m.body, created_at: iso(m.createdAt) };
}

export function toTicketDetail(detail: {
  ticket: TicketRowLike & { body: string; diagnostics: Record<string, unknown> | null };
  messages: MessageRowLike[];
}): z.infer<typeof TicketDetailSchema> {
  return {
    ...toTicketSummary(detail.ticket),
    body: detail.ticket.body,
    diagnostics: detail.ticket.diagnostics,
    messages: detail.messages.map(toMessage),
  };
}

/** Dashboard rows also say whose ticket it is. */
export const DashboardTicketSchema = TicketSummarySchema.extend({
  organization: z.object({ id: z.uuid(), name: z.string(), slug: z.string() }),
  instance: z.object({ id: z.uuid(), name: z.string() }).nullable(),
});

type DashboardTicketRowLike = TicketRowLike & {
  orgId: string;
  orgName: string;
  orgSlug: string;
  instanceId: string | null;
  instanceName: string | null;
};

export function toDashboardTicket(row: DashboardTicketRowLike): z.infer<typeof DashboardTicketSchema> {
  return {
    ...toTicketSummary(row),
    organization: { id: row.orgId, name: row.orgName, slug: row.orgSlug },
    instance: row.instanceId ? { id: row.instanceId, name: row.instanceName ?? '' } : null,
  };
}

// ---------------------------------------------------------------- addon audit events

export const MAX_EVENTS_PER_BATCH = 500;
export const MAX_BATCH_BYTES = 1024 * 1024;

export const AddonEventInputSchema = z.object({
  id: z.uuid({ error: 'must be a UUID' }).describe('Chosen by the instance; re-sending an id records nothing twice'),
  addon: lineText(100),
  action: lineText(100),
  actor: lineText(200).nullable().optional(),
  occurred_at: isoDateTime(),
  details: jsonObject(MAX_BATCH_BYTES, '1 MB').nullable().optional(),
});

export const AddonEventSchema = z.object({
  id: z.uuid(),
  organization: z.object({ id: z.uuid(), name: z.string(), slug: z.string() }),
  instance: z.object({ id: z.uuid(), name: z.string() }).nullable(),
  addon: z.string(),
  action: z.string(),
  actor: z.string().nullable(),
  occurred_at: z.string(),
  received_at: z.string(),
  details: z.record(z.string(), z.unknown()).nullable(),
});

export function toAddonEvent(row: AddonEventRow): z.infer<typeof AddonEventSchema> {
  return {
    id: row.id,
    organization: { id: row.orgId, name: row.orgName, slug: row.orgSlug },
    instance: row.instanceId ? { id: row.instanceId, name: row.instanceName ?? '' } : null,
    addon: row.addon,
    action: row.action,
    actor: row.actor,
    occurred_at: iso(row.occurredAt),
    received_at: iso(row.receivedAt),
    details: row.details,
  };
}

/** The filters of the addon event views and exports (query-string friendly). */
export const addonEventFilterInput = {
  org_id: z.uuid().optional().describe('Platform admins only'),
  instance_id: z.uuid().optional(),
  addon: z.string().trim().min(1).max(100).optional(),
  action: z.string().trim().min(1).max(100).optional(),
  since: isoDateTime('must be an ISO 8601 timestamp').optional().describe('occurred_at ≥ since'),
  until: isoDateTime('must be an ISO 8601 timestamp').optional().describe('occurred_at < until'),
};

export function toAddonEventFilters(input: {
  org_id?: string;
  instance_id?: string;
  addon?: string;
  action?: string;
  since?: string;
  until?: string;
}) {
  return {
    orgId: input.org_id,
    instanceId: input.instance_id,
    addon: input.addon,
    action: input.action,
    since: input.since ? new Date(input.since) : undefined,
    until: input.until ? new Date(input.until) : undefined,
  };
}
