/**
 * Core's command line (from the repo root: `npm run --silent core -- <command>`):
 *   serve                      API + frontend on CORE_PORT (migrations applied at start)
 *   migrate                    apply migrations
 *   user create --email E --role admin|readonly [--name N]    (password on stdin)
 *   token create --name N --role admin|readonly [--expires-in-days D]
 * Answers are JSON on stdout; errors go to stderr with a non-zero exit.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { configFromEnv, CORE_ROOT, type CoreConfig } from './config';
import { createCoreContext } from './context';
import { createMachineToken } from './domain/machineTokens';
import { CoreError } from './domain/errors';
import { parseRole } from './domain/roles';
import { checkPassword, createLocalUser } from './domain/users';
import { startServer } from './http/server';
import { createLogger, type Logger } from './log';

class UsageError extends Error {}

const USAGE = `usage: core serve | migrate | user create --email E --role admin|readonly [--name N] (password on stdin) | token create --name N --role admin|readonly [--expires-in-days D]`;

async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) throw new UsageError('give the password on stdin, e.g. printf %s "$PASSWORD" | npm run --silent core -- user create ...');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
}

function option(values: Record<string, string | boolean | undefined>, name: string): string {
  const v = values[name];
  if (typeof v !== 'string' || v === '') throw new UsageError(`--${name} is required`);
  return v;
}

/** Builds core/web when its output is missing (the frontend is optional: the API runs without it). */
function ensureWebBuilt(config: CoreConfig, log: Logger) {
  const webDir = path.join(CORE_ROOT, 'web');
  if (fs.existsSync(path.join(config.webDist, 'index.html')) || !fs.existsSync(path.join(webDir, 'package.json'))) return;
  log.info('building the web frontend (core/web/dist is missing)');
  const result = spawnSync('npm', ['run', 'build'], { cwd: webDir, stdio: ['ignore', 'inherit', 'inherit'] });
  if (result.status !== 0) log.warn('the web frontend build failed; serving the API only', { exit: result.status });
}

async function serveCommand(config: CoreConfig, log: Logger) {
  ensureWebBuilt(config, log);
  const core = await createCoreContext(config, log);
  const server = await startServer(core, { port: config.port, host: config.host });
  log.info('Core listening', { url: server.url, public_url: config.url, database: core.database.kind, temporary_admin: config.temporaryAdmin !== null });
  if (config.temporaryAdmin) log.warn('the temporary admin is enabled: remove SVC_TEMP_ADMIN_USERNAME/SVC_TEMP_ADMIN_PASSWORD once permanent admins exist');
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info('shutting down', { signal });
    server.close().then(
      () => process.exit(0),
      (err) => {
        log.error('shutdown failed', { error: String(err) });
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

async function withCore<T>(config: CoreConfig, log: Logger, work: (core: Awaited<ReturnType<typeof createCoreContext>>) => Promise<T>) {
  const core = await createCoreContext(config, log);
  try {
    return await work(core);
  } finally {
    await core.close();
  }
}

async function main(argv: string[]) {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      email: { type: 'string' },
      role: { type: 'string' },
      name: { type: 'string' },
      'expires-in-days': { type: 'string' },
    },
  });
  const command = positionals.join(' ');
  const config = configFromEnv();
  const log = createLogger(command === 'serve' ? config.logLevel : 'warn');

  switch (command) {
    case 'serve':
      return serveCommand(config, log);
    case 'migrate':
      await withCore(config, log, async (core) => print({ migrated: true, database: core.database.kind }));
      return;
    case 'user create': {
      const email = option(values, 'email');
      const role = parseRole(option(values, 'role'));
      const password = await readStdin();
      const name = typeof values.name === 'string' ? values.name : undefined;
      if (!/^[^\s@]+@[^\s@]+$/.test(email)) throw new UsageError('--email must be an email address');
      checkPassword(password); // before opening the database
      const user = await withCore(config, log, (core) => createLocalUser(core.db, { email, password, role, name }));
      print({ id: user.id, email: user.email, role: user.role });
      return;
    }
    case 'token create': {
      const name = option(values, 'name');
      const role = parseRole(option(values, 'role'));
      const raw = values['expires-in-days'];
      const days = raw === undefined ? null : Number(raw);
      if (days !== null && !(typeof raw === 'string' && /^-?\d+$/.test(raw))) throw new UsageError('--expires-in-days must be an integer from 1 to 365');
      const token = await withCore(config, log, (core) => createMachineToken(core.db, { name, role, expiresInDays: days, createdBy: 'cli' }));
      print({ id: token.id, token: token.token, role: token.role, expires_at: token.expires_at });
      return;
    }
    default:
      throw new UsageError(command ? `unknown command: ${command}` : 'no command given');
  }
}

function print(value: unknown) {
  process.stdout.write(JSON.stringify(value) + '\n');
}

main(process.argv.slice(2)).catch((err: unknown) => {
  const message = err instanceof Error ? err.message : String(err);
  process.stderr.write(`error: ${message}\n`);
  if (err instanceof UsageError) process.stderr.write(USAGE + '\n');
  process.exitCode = err instanceof CoreError || err instanceof UsageError ? 2 : 1;
});
