/**
 * Imported first by the production server (serve.ts), before any module that reads a setting as it loads (the
 * logger does): a setting that cannot be used stops the start with one 'could not start' line naming the variable,
 * not a stack trace.
 */
import { createLogger } from '@shared/logger';
import { config, ConfigError } from '../config';

try {
  void config.port; // the first use parses every setting
} catch (err) {
  if (!(err instanceof ConfigError)) throw err;
  createLogger({ service: 'hub', level: 'info' }).fatal({ err: err.message }, 'could not start');
  process.exit(1);
}
