/**
 * Whether a value carries a credential, whatever its name: `SONAR_JDBC_URL=jdbc:postgresql://db/sonar?password=x`
 * is as much a secret as `DB_PASSWORD=x`. Core refuses such a literal (a secret binding instead) and moves old ones
 * into secrets at start; the web frontend may warn with the same rule. No node: imports (the browser uses it).
 *
 * Found: a password in a URL's userinfo (`scheme://user:pass@`), a key=value parameter whose key is (or ends in
 * `_`, `-`, `.` and) password, passwd, pwd, secret, token, api_key, api-key or apikey, the same keys as JSON fields,
 * a private-key block, and the project's own tokens (svh_, svp_, svm_); also when percent-encoded. An empty part or a reference to another
 * variable (`${DB_PASSWORD}`, `$DB_PASSWORD`, `{{ db_password }}`) is not a credential. Every scan is linear in the
 * value's length (no backtracking pattern runs over an unbounded stretch of it).
 */
import { CHECKSUM_LENGTH, RANDOM_LENGTH, SECRET_KINDS, type SecretKind } from './shape';

export interface CredentialFinding {
  kind: 'url_password' | 'parameter' | 'private_key' | 'token';
  /** What was found, never the value: "the parameter password=". */
  description: string;
}

// password/passwd also as the end of a longer word (PGPASSWORD=, DBPASSWORD=); the shorter words only as a part.
const PARAMETER_KEY = /(?:password|passwd|(?:^|[_.-])(?:pwd|secret|token|api[_-]?key|apikey))$/i;
const KEY_CHAR = /[A-Za-z0-9_.-]/;
const MAX_KEY = 64;
const REFERENCE = /^(?:\$\{[^}]*\}|\$[A-Za-z_][A-Za-z0-9_]*|\{\{[^}]*\}\})$/;
const PRIVATE_KEY = /-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY( BLOCK)?-----/;
const TOKEN = new RegExp(
  `(?<![A-Za-z0-9])(${SECRET_KINDS.join('|')})[0-9A-Za-z]{${RANDOM_LENGTH + CHECKSUM_LENGTH}}(?![0-9A-Za-z])`,
);
const JSON_FIELD = /"([A-Za-z0-9_.-]{1,64})"\s{0,16}:\s{0,16}"((?:[^"\\]|\\.){0,4096})"/g;

const TOKEN_NAMES: Record<SecretKind, string> = {
  svh_: 'a Hub instance key (svh_…)',
  svp_: 'a Hub personal access token (svp_…)',
  svm_: 'a Core machine token (svm_…)',
};

/** A part that holds a credential: not empty (quotes aside) and not a reference to another variable. */
function isCredentialPart(part: string): boolean {
  const bare = part.replace(/^(["'])(.*)\1$/s, '$2').trim();
  return bare !== '' && !REFERENCE.test(bare);
}

/** A password in the userinfo of any URL in the value (`postgres://app:s3cret@db`, `redis://:s3cret@cache`). */
function urlPassword(value: string): boolean {
  for (let at = value.indexOf('://'); at >= 0; at = value.indexOf('://', at + 3)) {
    let end = at + 3;
    while (end < value.length && !/[\s/?#@]/.test(value[end]!)) end++;
    if (value[end] !== '@') continue;
    const userinfo = value.slice(at + 3, end);
    const colon = userinfo.indexOf(':');
    if (colon >= 0 && isCredentialPart(decodeSafely(userinfo.slice(colon + 1)))) return true;
  }
  return false;
}

function decodeSafely(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

/** The first key=value parameter whose key names a credential and whose value is one: its key. */
function credentialParameter(value: string): string | null {
  for (let eq = value.indexOf('='); eq >= 0; eq = value.indexOf('=', eq + 1)) {
    let keyEnd = eq;
    while (keyEnd > 0 && (value[keyEnd - 1] === ' ' || value[keyEnd - 1] === '\t')) keyEnd--;
    let keyStart = keyEnd;
    while (keyStart > 0 && keyEnd - keyStart < MAX_KEY && KEY_CHAR.test(value[keyStart - 1]!)) keyStart--;
    const key = value.slice(keyStart, keyEnd).replace(/^[-_.]+/, '');
    if (!PARAMETER_KEY.test(key)) continue;
    let start = eq + 1;
    while (value[start] === ' ' || value[start] === '\t') start++;
    let end = start;
    // A reference may hold spaces ({{ db_password }}): it ends at its closing braces.
    const close = value.startsWith('{{', start) ? value.indexOf('}}', start) : -1;
    if (close >= 0) end = close + 2;
    else while (end < value.length && !/[\s&;,#]/.test(value[end]!)) end++;
    if (isCredentialPart(decodeSafely(value.slice(start, end)))) return key;
  }
  return null;
}

function credentialField(value: string): string | null {
  for (const m of value.matchAll(JSON_FIELD)) {
    if (PARAMETER_KEY.test(m[1]!) && isCredentialPart(m[2]!)) return m[1]!;
  }
  return null;
}

const ESCAPE = /%([0-9A-Fa-f]{2})/g;
const HAS_ESCAPE = /%[0-9A-Fa-f]{2}/;

/** The value with its %XX escapes decoded (malformed ones kept), so that an encoded credential is found too. */
function percentDecoded(value: string): string {
  return value.replace(ESCAPE, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/**
 * What credential the value carries (the first found), or null. The value is read as written and, when it holds
 * percent escapes, decoded (up to twice: `password%3D…`, a whole URL encoded into a parameter of another).
 */
export function findCredentialInValue(value: string): CredentialFinding | null {
  let found = findIn(value);
  for (let round = 0, v = value; !found && round < 2 && HAS_ESCAPE.test(v); round++) {
    v = percentDecoded(v);
    found = findIn(v);
  }
  return found;
}

function findIn(value: string): CredentialFinding | null {
  const token = TOKEN.exec(value);
  if (token) return { kind: 'token', description: TOKEN_NAMES[token[1] as SecretKind] };
  if (PRIVATE_KEY.test(value))
    return { kind: 'private_key', description: 'a private key (-----BEGIN … PRIVATE KEY-----)' };
  if (urlPassword(value)) return { kind: 'url_password', description: 'a password in a URL (user:password@host)' };
  const key = credentialParameter(value);
  if (key) return { kind: 'parameter', description: `the parameter ${key}=` };
  const field = credentialField(value);
  if (field) return { kind: 'parameter', description: `the JSON field "${field}"` };
  return null;
}
