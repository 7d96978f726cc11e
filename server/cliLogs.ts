/**
 * Imported first by the CLI (server/cli.ts), before any module that logs is evaluated: the CLI prints its result on
 * stdout (a user's JSON, a token) for scripts to pipe, so its logs go to stderr.
 */
import { sendLogsToStderr } from './config';

sendLogsToStderr();
