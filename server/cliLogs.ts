/**
 * Imported first by the CLI (server/cli.ts), before any module that logs is evaluated: the CLI prints its result on
 * stdout (a user's JSON, a token) for scripts to pipe, so its logs go to stderr. A setting that cannot be used stops
 * it here with one line naming the variable (as the server's configAtStart.ts does), not a stack trace.
 */
import { config, ConfigError, sendLogsToStderr } from './config';

sendLogsToStderr();
try {
  void config.port; // the first use parses every setting
} catch (err) {
  if (!(err instanceof ConfigError)) throw err;
  process.stderr.write(`hub: ${err.message}; fix the setting and run the command again\n`);
  process.exit(1);
}
