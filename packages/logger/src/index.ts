/**
 * Structured logs of the Hub and Core: pino, one JSON object per line, with one set of redaction rules and
 * one request-id rule. Callers pass fields, never request bodies or credentials; redaction masks
 * credential-bearing fields whatever a caller passes in, as a second line of defence.
 */
import pino, { type DestinationStream, type Level, type Logger } from 'pino';

export type { Logger };
export type LogLevel = Level | 'silent';

/** Fields (top level and one level down) whose values are never written. */
export const REDACT_PATHS = ['authorization', 'cookie', 'token', 'secret', 'password'].flatMap((field) => [
  field,
  `*.${field}`,
]);
export const REDACTED = '[redacted]';

export interface LoggerOptions {
  /** The `service` field of every line ("hub", "core"). */
  service: string;
  /** fatal, error, warn, info, debug, trace or silent (pino refuses others). */
  level: LogLevel | (string & {});
  /** Where lines go: a pino destination, or any object with write(line) (tests capture lines so). */
  destination?: DestinationStream;
  /**
   * false: no redaction, for loggers whose fields are fixed and never carry a secret (the Hub's access line:
   * with wildcard paths redaction costs more than the rest of a line written once per request).
   */
  redact?: boolean;
}

export function createLogger({ service, level, destination, redact = true }: LoggerOptions): Logger {
  const options = {
    level,
    base: { service },
    ...(redact ? { redact: { paths: REDACT_PATHS, censor: REDACTED } } : {}),
  };
  return destination ? pino(options, destination) : pino(options);
}

export { REQUEST_ID, requestIdFrom } from './requestId';

/** The logger of one request: its id on every line. */
export function withRequestId(logger: Logger, requestId: string): Logger {
  return logger.child({ requestId });
}
