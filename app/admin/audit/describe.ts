/**
 * The audit log in words: what an action did ("revoked API key"), where its target lives in the dashboard,
 * and the before/after of what changed, read from the details the audit writers store (server/domain/*):
 * `{field: {from, to}}`, `changes: {field: {from, to}}`, top-level `from`/`to`, and `changed`/`fields` lists.
 */

export interface AuditEntryView {
  action: string;
  actor_type: 'user' | 'instance' | 'system';
  actor_id: string | null;
  actor_name: string | null;
  actor_email: string | null;
  actor_org_id: string | null;
  actor_deleted: boolean;
  target_type: string;
  target_id: string | null;
  target_name: string | null;
  target_email: string | null;
  target_deleted: boolean;
  org_id: string | null;
  org_name: string | null;
  details: Record<string, unknown>;
}

export const TARGET_TYPES: Record<string, string> = {
  user: 'user',
  organization: 'organization',
  template: 'template',
  category: 'category',
  api_key: 'instance key',
  access_grant: 'access grant',
  personal_access_token: 'personal access token',
  support_ticket: 'support ticket',
  dns_record: 'DNS record',
  instance_key: 'instance',
};

/** Every action the Hub records, with its words (the filter's choices). */
export const ACTIONS: Record<string, string> = {
  'user.create': 'created user',
  'user.link_identity': 'linked a sign-in identity to',
  'user.role_change': 'changed the platform role of',
  'user.update_role': 'changed the platform role of',
  'user.update_profile': 'updated the profile of',
  'user.end_sessions': 'ended the sessions of',
  'user.delete': 'deleted user',
  'api_token.issue': 'issued a script token for',
  'organization.create': 'created organization',
  'organization.update': 'updated organization',
  'member.add': 'added member',
  'member.update': 'changed the organization role of',
  'member.remove': 'removed member',
  'api_key.create': 'created instance key',
  'api_key.reissue': 're-issued instance key',
  'api_key.revoke': 'revoked instance key',
  'personal_access_token.create': 'created personal access token',
  'personal_access_token.rotate': 'rotated personal access token',
  'personal_access_token.revoke': 'revoked personal access token',
  'template.create': 'created template',
  'template.update': 'updated template',
  'template.delete': 'deleted template',
  'category.create': 'created category',
  'category.update': 'updated category',
  'category.delete': 'deleted category',
  'access_grant.create': 'granted catalog access',
  'access_grant.delete': 'removed catalog access',
  'support_ticket.status': 'changed the status of ticket',
  'instance.report': 'reported the state of instance',
  'instance.url_change': 'changed the registered URL of instance',
  'instance.url_change_acknowledge': 'acknowledged the URL change of instance',
  'dns_record.create': 'created the DNS record of',
  'dns_record.update': 'updated the DNS record of',
  'dns_record.delete': 'deleted the DNS record of',
  'dns_record.retry_publish': 'retried publishing the DNS record of',
};

export function actionWords(action: string): string {
  if (ACTIONS[action]) return ACTIONS[action];
  const [type, verb] = action.split('.');
  return `${(verb ?? action).replace(/_/g, ' ')} ${TARGET_TYPES[type ?? ''] ?? (type ?? '').replace(/_/g, ' ')}`.trim();
}

/** "key_prefix" → "Key prefix". */
export function fieldLabel(key: string): string {
  const words = key
    .replace(/_/g, ' ')
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase();
  const label = words
    .replace(/\bid\b/g, 'ID')
    .replace(/\bip\b/g, 'IP')
    .replace(/\bttl\b/g, 'TTL')
    .replace(/\burl\b/g, 'URL');
  return label.charAt(0).toUpperCase() + label.slice(1);
}

export function showValue(value: unknown): string {
  if (value === null || value === undefined || value === '') return '(none)';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (typeof value === 'string' || typeof value === 'number') return String(value);
  if (Array.isArray(value)) return value.length === 0 ? '(none)' : value.map(showValue).join(', ');
  return JSON.stringify(value);
}

export interface Change {
  field: string;
  from: string;
  to: string;
}

export interface Described {
  changes: Change[];
  /** Fields that changed, values not recorded (template updates). */
  changedFields: string[];
  /** Everything else recorded: "Key prefix: svh_ab12". */
  facts: { label: string; value: string }[];
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const isFromTo = (v: unknown): v is { from: unknown; to: unknown } =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && 'from' in v && 'to' in v;

/** The readable before/after of an entry's details. */
export function describeDetails(
  action: string,
  details: Record<string, unknown>,
  targetName: string | null,
): Described {
  const out: Described = { changes: [], changedFields: [], facts: [] };
  const topFromTo = 'from' in details && 'to' in details;
  const topLabel =
    action === 'support_ticket.status' ? 'Status' : action.startsWith('user.role') ? 'Platform role' : 'Value';
  if (topFromTo) out.changes.push({ field: topLabel, from: showValue(details.from), to: showValue(details.to) });
  for (const [key, value] of Object.entries(details)) {
    if (topFromTo && (key === 'from' || key === 'to')) continue;
    if (key === 'changes' && typeof value === 'object' && value !== null && !Array.isArray(value)) {
      for (const [field, change] of Object.entries(value)) {
        if (isFromTo(change))
          out.changes.push({ field: fieldLabel(field), from: showValue(change.from), to: showValue(change.to) });
        else out.facts.push({ label: fieldLabel(field), value: showValue(change) });
      }
      continue;
    }
    // A creation lists every field it set: the creation itself is the news.
    if (key === 'fields' && action.endsWith('.create')) continue;
    // Ids: the sentence already names and links what they point at.
    if (/(^|_)id$/.test(key) || (typeof value === 'string' && UUID.test(value))) continue;
    if ((key === 'changed' || key === 'fields') && Array.isArray(value)) {
      out.changedFields.push(...value.map((f) => fieldLabel(String(f))));
      continue;
    }
    if (isFromTo(value)) {
      out.changes.push({
        field: key === 'role' && action.startsWith('member.') ? 'Organization role' : fieldLabel(key),
        from: showValue(value.from),
        to: showValue(value.to),
      });
      continue;
    }
    // The target's own name is already in the sentence.
    if ((key === 'name' || key === 'email' || key === 'slug') && value === targetName) continue;
    out.facts.push({ label: fieldLabel(key), value: showValue(value) });
  }
  return out;
}

/** Where the actor is shown in the dashboard: a user on Admin → Users, an instance key's organization. */
export function actorHref(e: AuditEntryView): string | null {
  if (e.actor_deleted) return null;
  if (e.actor_type === 'user' && e.actor_email) return `/admin/users?search=${encodeURIComponent(e.actor_email)}`;
  if (e.actor_type === 'instance' && e.actor_org_id) return `/admin/organizations/${e.actor_org_id}`;
  return null;
}

/** Where the target is shown: its edit page, its organization, or Admin → Users filtered on it. */
export function targetHref(e: AuditEntryView): string | null {
  if (e.target_deleted || !e.target_id) return null;
  switch (e.target_type) {
    case 'user':
      return e.target_email ? `/admin/users?search=${encodeURIComponent(e.target_email)}` : null;
    case 'organization':
      return `/admin/organizations/${e.target_id}`;
    case 'template':
      return `/admin/templates/${e.target_id}`;
    case 'category':
      return `/admin/categories/${e.target_id}`;
    case 'support_ticket':
      return `/support/tickets/${e.target_id}`;
    case 'api_key':
    case 'instance_key':
    case 'dns_record':
    case 'access_grant':
    case 'personal_access_token':
      return e.org_id ? `/admin/organizations/${e.org_id}` : null;
    default:
      return null;
  }
}

export function actorLabel(e: AuditEntryView): string {
  if (e.actor_type === 'system') return e.actor_id ? `System (${e.actor_id.replace(/[-_]/g, ' ')})` : 'System';
  if (e.actor_name) return e.actor_name;
  return e.actor_type === 'instance' ? 'A deleted instance' : 'A deleted user';
}

export function targetLabel(e: AuditEntryView): string {
  if (e.target_name) return e.target_name;
  return e.target_id ? 'deleted' : '';
}
