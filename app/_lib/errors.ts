/**
 * Error messages written for people, out of tRPC errors (browser or server-side caller): no field paths
 * ("email: …"), no schema words ("Invalid UUID", "Too small: expected string to have >=1 characters").
 *
 *   errorMessage(err)            one sentence for a toast or banner
 *   formErrors(err, ['name'])    { fields: {name: 'Name is required.'}, message: null } — a form shows each
 *                                field's own message beside the field, and `message` (only what no field
 *                                of the form can show) once, in a banner or toast: never both.
 */
export interface FieldIssue {
  path?: readonly (string | number | symbol)[];
  message: string;
  code?: string;
  expected?: string;
  origin?: string;
  format?: string;
  minimum?: number | bigint;
  maximum?: number | bigint;
  values?: readonly unknown[];
  inclusive?: boolean;
}

interface ErrorLike {
  message?: string;
  data?: { code?: string; httpStatus?: number; issues?: FieldIssue[] } | null;
  cause?: { issues?: FieldIssue[] } | null;
  code?: string;
}

const NAMES: Record<string, string> = {
  id: 'This record',
  user_id: 'The user',
  org_id: 'The organization',
  category_id: 'Category',
  instance_id: 'The instance',
  email: 'Email address',
  url: 'URL',
  image_name: 'Image name',
  sort_order: 'Sort order',
};

/** "sort_order" → "Sort order"; "ports.0.containerPort" → "Ports (row 1): container port". */
export function fieldLabel(path: readonly (string | number | symbol)[]): string {
  const parts = path.map((p) => (typeof p === 'symbol' ? '' : String(p))).filter(Boolean);
  if (parts.length === 0) return '';
  const words = (s: string) => NAMES[s] ?? humanize(s);
  const top = words(parts[0]!);
  const rest = parts.slice(1);
  const row = rest.find((p) => /^\d+$/.test(p));
  const leaf = [...rest].reverse().find((p) => !/^\d+$/.test(p));
  return `${top}${row !== undefined ? ` (row ${Number(row) + 1})` : ''}${leaf ? `: ${humanize(leaf).toLowerCase()}` : ''}`;
}

function humanize(s: string) {
  const w = s
    .replace(/_/g, ' ')
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .replace(/\bid\b/g, 'ID')
    .replace(/\burl\b/g, 'URL')
    .replace(/\bip\b/g, 'IP');
  return w.charAt(0).toUpperCase() + w.slice(1);
}

const sentence = (s: string) => {
  const t = s.trim();
  if (!t) return t;
  const first = t.charAt(0).toUpperCase() + t.slice(1);
  return /[.!?…)]$/.test(first) ? first : `${first}.`;
};

/** zod's own wordings, which mean nothing to people: replaced by ours. */
const SCHEMA_WORDS =
  /^(invalid|too (small|big)|expected|unrecognized|required$)|\bexpected (string|number|boolean|object|array)\b|[<>]=?\s*\d/i;
/** Our server messages are predicates written for people: "must be at least 1", "is already taken". */
const PREDICATE = /^(must|may|is|are|cannot|can't|should|needs?|has|have|was|already|not)\b/i;

function plural(n: number | bigint, one: string, many = `${one}s`) {
  return `${n} ${Number(n) === 1 ? one : many}`;
}

/** What is wrong with the field, as a predicate ("is required", "must be a valid email address"). */
function predicate(issue: FieldIssue): string {
  const { code, message } = issue;
  if (message && !SCHEMA_WORDS.test(message) && PREDICATE.test(message)) return message;
  switch (code) {
    case 'invalid_type':
      if (/received undefined|received null/.test(message)) return 'is required';
      return issue.expected === 'number' || issue.expected === 'int'
        ? 'must be a number'
        : issue.expected === 'boolean'
          ? 'must be yes or no'
          : 'is not valid';
    case 'too_small':
      if (issue.origin === 'string')
        return Number(issue.minimum) <= 1 ? 'is required' : `must be at least ${plural(issue.minimum!, 'character')}`;
      if (issue.origin === 'array' || issue.origin === 'set')
        return `needs at least ${plural(issue.minimum!, 'entry', 'entries')}`;
      return issue.inclusive === false ? `must be more than ${issue.minimum}` : `must be at least ${issue.minimum}`;
    case 'too_big':
      if (issue.origin === 'string') return `must be at most ${plural(issue.maximum!, 'character')}`;
      if (issue.origin === 'array' || issue.origin === 'set')
        return `can have at most ${plural(issue.maximum!, 'entry', 'entries')}`;
      return issue.inclusive === false ? `must be less than ${issue.maximum}` : `must be at most ${issue.maximum}`;
    case 'invalid_format':
      switch (issue.format) {
        case 'email':
          return 'must be a valid email address';
        case 'uuid':
        case 'guid':
          return 'must be chosen';
        case 'url':
          return 'must be a full URL, like https://example.com';
        case 'datetime':
        case 'date':
          return 'must be a valid date';
        case 'ipv4':
        case 'ipv6':
          return 'must be a valid IP address';
        default:
          return SCHEMA_WORDS.test(message) ? 'is not in the expected format' : message;
      }
    case 'invalid_value':
      return issue.values && issue.values.length > 0 && issue.values.length <= 6
        ? `must be one of ${issue.values.map(String).join(', ')}`
        : 'is not one of the choices';
    case 'unrecognized_keys':
      return 'contains fields the Hub does not know';
    default:
      // Only zod's message (the one-line summary, issues not attached): read what it says.
      if (/\bemail\b/i.test(message)) return 'must be a valid email address';
      if (/\buuid\b/i.test(message)) return 'must be chosen';
      if (/\burl\b/i.test(message)) return 'must be a full URL, like https://example.com';
      if (/received undefined|required/i.test(message)) return 'is required';
      return message && !SCHEMA_WORDS.test(message) ? message : 'is not valid';
  }
}

/** One issue as a sentence naming the field in words: "Name is required.", "Choose a category." */
export function issueSentence(issue: FieldIssue): string {
  const label = fieldLabel(issue.path ?? []);
  const what = predicate(issue);
  if (what === 'must be chosen')
    return label
      ? sentence(`Choose ${/^the /i.test(label) ? label.toLowerCase() : `a ${label.toLowerCase()}`}`)
      : 'Choose a value.';
  if (!label) return sentence(what);
  return sentence(PREDICATE.test(what) ? `${label} ${what}` : `${label}: ${what}`);
}

function issuesOf(err: unknown): FieldIssue[] {
  const e = err as ErrorLike | null;
  return e?.data?.issues ?? e?.cause?.issues ?? [];
}

const FIELD_PREFIX = /^([a-z][a-z0-9_]*(?:\.[a-z0-9_]+)*):\s+(.+)$/is;

/** A server message that starts with a field path ("slug: a category with this slug exists"): the field and the rest. */
function splitPrefixed(message: string): { field: string; text: string } | null {
  const m = FIELD_PREFIX.exec(message.trim());
  return m ? { field: m[1]!.split('.')[0]!, text: m[2]! } : null;
}

function statusOf(err: unknown): number {
  const e = err as ErrorLike | null;
  return e?.data?.httpStatus ?? 0;
}

/** The message of an error for a toast or banner: one plain sentence (or a few), never field paths. */
export function errorMessage(err: unknown): string {
  const e = err as ErrorLike | null;
  if (!e) return 'Something went wrong. Try again.';
  const status = statusOf(err);
  if (status === 401 || e.data?.code === 'UNAUTHORIZED') return 'Your session has ended: sign in again.';
  const issues = issuesOf(err);
  if (issues.length > 0) {
    const sentences = [...new Set(issues.map(issueSentence))];
    return sentences.slice(0, 3).join(' ') + (sentences.length > 3 ? ` (${sentences.length - 3} more to fix.)` : '');
  }
  if (status >= 500 || e.data?.code === 'INTERNAL_SERVER_ERROR') {
    return status === 503
      ? 'The Hub is briefly unavailable. Try again in a few seconds.'
      : 'Something went wrong on the server. Try again; if it keeps happening, tell your Hub administrator.';
  }
  const message = (e.message ?? '').trim();
  if (!message) return 'Something went wrong. Try again.';
  if (/^(failed to fetch|fetch failed|networkerror|load failed)/i.test(message))
    return 'The Hub could not be reached. Check your connection and try again.';
  // "Invalid input: a: b; c: d" (the server's one-line summary, when the issues are not attached).
  const summary = /^Invalid input:\s*(.+)$/is.exec(message);
  if (summary) {
    return summary[1]!
      .split(/;\s+/)
      .map((part) => {
        const p = splitPrefixed(part);
        return p ? issueSentence({ path: p.field.split('.'), message: p.text }) : sentence(part);
      })
      .join(' ');
  }
  const prefixed = splitPrefixed(message);
  if (prefixed) return sentence(prefixed.text);
  return sentence(message);
}

/** field name ("ports.0.containerPort" → "ports") → its message, a sentence naming the field; the first of each field wins. */
export function fieldErrors(err: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  const issues = issuesOf(err);
  for (const issue of issues) {
    const path = (issue.path ?? []).map(String);
    const top = path[0] ?? '';
    const full = path.join('.');
    const text = issueSentence(issue);
    if (full && !(full in out)) out[full] = text;
    if (top && !(top in out)) out[top] = text;
  }
  if (issues.length === 0 && err) {
    // A refusal the server tied to one field ("slug: already taken"): that field's message.
    const prefixed = splitPrefixed((err as ErrorLike).message ?? '');
    if (prefixed && statusOf(err) !== 401) out[prefixed.field] = sentence(prefixed.text);
  }
  return out;
}

/**
 * For forms: each of `fields`' own message (show it beside the field), and `message` for what none of
 * them can show (show it once, in a banner or toast). `message` is null when every problem has a field,
 * so the form does not repeat the field messages in a toast.
 */
export function formErrors(
  err: unknown,
  fields?: readonly string[],
): { fields: Record<string, string>; message: string | null } {
  if (!err) return { fields: {}, message: null };
  const all = fieldErrors(err);
  const mine: Record<string, string> = {};
  for (const [k, v] of Object.entries(all))
    if (!fields || fields.includes(k) || fields.includes(k.split('.')[0]!)) mine[k] = v;
  const issues = issuesOf(err);
  const unplaced = issues.filter((i) => {
    const top = String((i.path ?? [])[0] ?? '');
    return !top || (fields !== undefined && !fields.includes(top));
  });
  if (Object.keys(mine).length === 0) return { fields: {}, message: errorMessage(err) };
  if (unplaced.length === 0) return { fields: mine, message: null };
  return { fields: mine, message: [...new Set(unplaced.map(issueSentence))].join(' ') };
}

/** Whether `err` only concerns fields a form shows (then the form shows it; no toast). */
export function isFieldError(err: unknown, fields?: readonly string[]): boolean {
  return err !== null && err !== undefined && formErrors(err, fields).message === null;
}
