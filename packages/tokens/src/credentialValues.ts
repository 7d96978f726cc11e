/**
 * Whether a value carries a credential, whatever its name: `SONAR_JDBC_URL=jdbc:postgresql://db/sonar?password=x`
 * is as much a secret as `DB_PASSWORD=x`. Core refuses such a literal (a secret binding instead) and moves old ones
 * into secrets at start; the web frontend may warn with the same rule. No node: imports (the browser uses it).
 *
 * Found: a password in a URL's userinfo (`scheme://user:pass@`), a token that is a URL's whole userinfo
 * (`https://ghp_…@github.com`: a known token prefix, or a long value that mixes letters and digits like a random
 * one, never a user name such as `git@` or `deploy-bot-01@`), a key=value parameter whose key is (or ends in `_`,
 * `-`, `.` and) password, passwd, pwd, secret, token, api_key, api-key or apikey, the same keys as JSON fields and as
 * `key: value` lines of a YAML/INI/env-file shaped value (every line a setting, comment, section or indented
 * continuation; prose is not), a private-key block, and the project's own tokens (svh_, svp_, svm_); also when
 * percent-encoded. An empty part, a YAML null (`~`, `null`) or a reference to another variable (`${DB_PASSWORD}`,
 * `$DB_PASSWORD`, `{{ db_password }}`, a YAML alias `*db_password`) is not a credential. Every scan is linear in the
 * value's length (no backtracking pattern runs over an unbounded stretch of it).
 */
import { CHECKSUM_LENGTH, RANDOM_LENGTH, SECRET_KINDS, type SecretKind } from './shape';

export interface CredentialFinding {
  kind: 'url_password' | 'url_token' | 'parameter' | 'private_key' | 'token';
  /** What was found, never the value: "the parameter password=". */
  description: string;
}

// password/passwd also as the end of a longer word (PGPASSWORD=, DBPASSWORD=); the shorter words only as a part.
const PARAMETER_KEY = /(?:password|passwd|(?:^|[_.-])(?:pwd|secret|token|api[_-]?key|apikey))$/i;
const KEY_CHAR = /[A-Za-z0-9_.-]/;
const MAX_KEY = 64;
const REFERENCE = /^(?:\$\{[^}]*\}|\$[A-Za-z_][A-Za-z0-9_]*|\{\{[^}]*\}\})$/;
const YAML_NULL = /^(?:~|null|Null|NULL)$/;
const YAML_ALIAS = /^\*[A-Za-z0-9_.-]+$/;
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

/**
 * A password in the userinfo of any URL in the value (`postgres://app:s3cret@db`, `redis://:s3cret@cache`), or a
 * token that is the whole userinfo (`https://ghp_…@github.com/org/repo.git`).
 */
function urlCredential(value: string): 'password' | 'token' | null {
  for (let at = value.indexOf('://'); at >= 0; at = value.indexOf('://', at + 3)) {
    let end = at + 3;
    while (end < value.length && !/[\s/?#@]/.test(value[end]!)) end++;
    if (value[end] !== '@') continue;
    const userinfo = value.slice(at + 3, end);
    const colon = userinfo.indexOf(':');
    if (colon >= 0 && isCredentialPart(decodeSafely(userinfo.slice(colon + 1)))) return 'password';
    if (colon < 0 && isTokenShaped(decodeSafely(userinfo))) return 'token';
  }
  return null;
}

// Prefixes of well-known tokens that stand alone in a URL's userinfo (GitHub, GitLab, Slack, Hugging Face, npm, PyPI…).
const TOKEN_PREFIX =
  /^(?:gh[pousr]_|github_pat_|glpat-|gldt-|glptt-|glrt-|xox[abposr]-|hf_|npm_|pypi-|sk-|sk_live_|rk_live_)/;

/**
 * Whether a userinfo without a colon is a token rather than a user name: a known token prefix and at least 16 more
 * characters, or 20+ characters of [A-Za-z0-9_-] that switch between letters and digits at least 4 times, as a
 * random string does (hex, base32, base62) and a name (git, deploy-bot-01, jenkins-agent-2024) does not.
 */
function isTokenShaped(userinfo: string): boolean {
  if (!/^[A-Za-z0-9_-]{20,}$/.test(userinfo)) return false;
  const prefix = TOKEN_PREFIX.exec(userinfo);
  if (prefix && userinfo.length - prefix[0].length >= 16) return true;
  let switches = 0;
  for (let i = 1; i < userinfo.length; i++) {
    const a = userinfo.charCodeAt(i - 1) <= 57 && userinfo.charCodeAt(i - 1) >= 48;
    const b = userinfo.charCodeAt(i) <= 57 && userinfo.charCodeAt(i) >= 48;
    if (a !== b && /[A-Za-z]/.test(a ? userinfo[i]! : userinfo[i - 1]!)) switches++;
  }
  return switches >= 4;
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

// One line of a YAML/INI/env-file: indentation, a list dash, `export`, a key (quoted or not), then `:` or `=`.
const SETTING_LINE = /^([ \t]*)(?:-[ \t]+)?(?:export[ \t]+)?(["']?)([A-Za-z0-9_.-]{1,64})\2[ \t]*(?:(:)(?=[ \t]|$)|=)/;
// Lines that belong in such a value beside settings: blank, comments, [sections], document markers, list items.
const OTHER_LINE = /^(?:[ \t]*$|[ \t]*[#;]|\[[^\]]*\][ \t]*$|---|\.\.\.|-(?:[ \t]|$))/;
const BLOCK_SCALAR = /^[|>][-+0-9]{0,3}$/;

/**
 * The first `key: value` line whose key names a credential and whose value is one, in a value that is shaped like a
 * YAML, INI or env file: its key. Every line must be a setting, a comment, a section, a list item or an indented
 * continuation, so that prose mentioning a password is not one. An unquoted value of several words counts only in a
 * value of two settings or more (`Password: ask the admin` alone is a sentence); a block scalar (`password: |`)
 * counts with its first line.
 */
function credentialSetting(value: string): string | null {
  if (value.indexOf(':') < 0) return null;
  const lines = value.split(/\r?\n/);
  let settings = 0;
  const candidates: { key: string; text: string; line: number; indent: number }[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const m = SETTING_LINE.exec(line);
    if (m) {
      settings++;
      if (m[4] === ':' && PARAMETER_KEY.test(m[3]!)) {
        candidates.push({ key: m[3]!, text: line.slice(m[0].length), line: i, indent: m[1]!.length });
      }
    } else if (!OTHER_LINE.test(line) && !/^[ \t]/.test(line)) return null;
  }
  for (const c of candidates) {
    const v = settingValue(c.text);
    if (v === null) continue;
    if (BLOCK_SCALAR.test(v.text)) {
      let n = c.line + 1;
      while (n < lines.length && lines[n]!.trim() === '') n++;
      const next = lines[n];
      if (next !== undefined && next.length - next.trimStart().length > c.indent && isCredentialPart(next))
        return c.key;
      continue;
    }
    if (YAML_NULL.test(v.text) || YAML_ALIAS.test(v.text) || !isCredentialPart(v.text)) continue;
    if (!v.quoted && /\s/.test(v.text) && settings < 2) continue;
    return c.key;
  }
  return null;
}

/** The value after a setting's `:`: a quoted string's content, or the text before a ` #` comment; null when none. */
function settingValue(rest: string): { text: string; quoted: boolean } | null {
  const text = rest.trim();
  const quote = text[0];
  if (quote === '"' || quote === "'") {
    let end = 1;
    while (end < text.length && text[end] !== quote) end += quote === '"' && text[end] === '\\' ? 2 : 1;
    return { text: text.slice(1, end), quoted: true };
  }
  if (text === '' || text.startsWith('#')) return null;
  const comment = text.search(/[ \t]#/);
  return { text: (comment >= 0 ? text.slice(0, comment) : text).trim(), quoted: false };
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
  const inUrl = urlCredential(value);
  if (inUrl === 'password') return { kind: 'url_password', description: 'a password in a URL (user:password@host)' };
  if (inUrl === 'token') return { kind: 'url_token', description: 'a token in a URL (token@host)' };
  const key = credentialParameter(value);
  if (key) return { kind: 'parameter', description: `the parameter ${key}=` };
  const field = credentialField(value);
  if (field) return { kind: 'parameter', description: `the JSON field "${field}"` };
  const setting = credentialSetting(value);
  if (setting) return { kind: 'parameter', description: `the setting ${setting}:` };
  return null;
}
