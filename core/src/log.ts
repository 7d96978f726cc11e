/**
 * Structured logs: pino through @shared/logger (the Hub's redaction rules and request ids), one JSON object
 * per line on stderr (stdout belongs to the CLI's JSON answers), written synchronously so that a CLI command's
 * last line is never lost to its exit. Callers pass fields first, then the message: `log.info({ user_id }, 'msg')`.
 */
import { createLogger, type Logger, type LogLevel } from '@shared/logger';
import pino from 'pino';

export type { Logger, LogLevel };

/** Core's logger at `level`; `write` receives each line instead of stderr (tests capture lines so). */
export function createCoreLogger(level: LogLevel, write?: (line: string) => void): Logger {
  const destination = write ? { write } : pino.destination({ dest: 2, sync: true });
  return createLogger({ service: 'core', level, destination });
}
