/**
 * Structured logs: one JSON object per line on stderr (stdout belongs to the CLI's JSON answers).
 * Callers pass fields, never request bodies or credentials; `redact` masks any field whose name
 * looks secret as a second line of defence.
 */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
const ORDER = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 } as const;
const SECRET_FIELD = /pass|secret|token|authorization|cookie|value|key/i;

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

function redact(fields: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields)) {
    // Identifiers (token_id) are fine; values of secret-looking fields are not.
    out[k] = SECRET_FIELD.test(k) && !/_id$|^id$/.test(k) ? '[redacted]' : v;
  }
  return out;
}

export function createLogger(level: keyof typeof ORDER, write: (line: string) => void = (l) => process.stderr.write(l + '\n')): Logger {
  const min = ORDER[level];
  const log = (lvl: LogLevel) => (msg: string, fields: Record<string, unknown> = {}) => {
    if (ORDER[lvl] < min) return;
    write(JSON.stringify({ time: new Date().toISOString(), level: lvl, msg, ...redact(fields) }));
  };
  return { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') };
}
