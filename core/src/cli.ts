/**
 * Core's command line (from the repo root: `npm run --silent core -- <command>`; `--help` on any command says how
 * to use it). Answers are JSON on stdout; errors go to stderr. Exit codes: 0 done, 1 the command failed, 2 the
 * command line was wrong (the usage follows the message).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Command, InvalidArgumentError, runCli } from '@shared/cli';
import { configFromEnv, CORE_ROOT, type CoreConfig } from './config';
import { createCoreContext } from './context';
import { rotationReport } from '@shared/seal/master';
import { rotateMasterSecret } from './domain/crypto';
import { CLI_ACTOR } from './domain/activity';
import { createMachineToken } from './domain/machineTokens';
import { parseRole, type Role } from './domain/roles';
import { checkPassword, createLocalUser, findLocalUserByEmail, updateUser } from './domain/users';
import { startServer } from './http/server';
import { createCoreLogger, type Logger } from './log';

async function readStdin(
  whatOnTty = 'give the password on stdin, e.g. printf %s "$PASSWORD" | npm run --silent core -- user create ...',
): Promise<string> {
  if (process.stdin.isTTY) throw new Error(whatOnTty);
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

/** --role: admin or readonly (the roles operator and viewer no longer exist). */
function role(value: string): Role {
  try {
    return parseRole(value);
  } catch (err) {
    throw new InvalidArgumentError(`--${(err as Error).message}`);
  }
}

function email(value: string): string {
  if (!/^[^\s@]+@[^\s@]+$/.test(value)) throw new InvalidArgumentError('--email must be an email address');
  return value;
}

function expiresInDays(value: string): number {
  const days = Number(value);
  if (!/^\d+$/.test(value) || days < 1 || days > 365) {
    throw new InvalidArgumentError(
      '--expires-in-days must be a whole number from 1 to 365; leave it out for a token that never expires',
    );
  }
  return days;
}

/** Builds core/web when its output is missing (the frontend is optional: the API runs without it). */
function ensureWebBuilt(config: CoreConfig, log: Logger) {
  const webDir = path.join(CORE_ROOT, 'web');
  if (fs.existsSync(path.join(config.webDist, 'index.html')) || !fs.existsSync(path.join(webDir, 'package.json')))
    return;
  log.info('building the web frontend (core/web/dist is missing)');
  const result = spawnSync('npm', ['run', 'build'], { cwd: webDir, stdio: ['ignore', 'inherit', 'inherit'] });
  if (result.status !== 0) log.warn({ exit: result.status }, 'the web frontend build failed; serving the API only');
}

async function serveCommand(config: CoreConfig, log: Logger) {
  ensureWebBuilt(config, log);
  const core = await createCoreContext(config, log);
  const server = await startServer(core, { port: config.port, host: config.host });
  log.info(
    {
      url: server.url,
      public_url: config.url,
      database: core.database.kind,
      temporary_admin: config.temporaryAdmin !== null,
    },
    'Core listening',
  );
  if (config.temporaryAdmin)
    log.warn(
      'the temporary admin is enabled: remove SVC_TEMP_ADMIN_USERNAME/SVC_TEMP_ADMIN_PASSWORD once permanent admins exist',
    );
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    server.close().then(
      () => process.exit(0),
      (err) => {
        log.error({ error: String(err) }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

async function withCore<T>(
  config: CoreConfig,
  log: Logger,
  work: (core: Awaited<ReturnType<typeof createCoreContext>>) => Promise<T>,
) {
  const core = await createCoreContext(config, log);
  try {
    return await work(core);
  } finally {
    await core.close();
  }
}

function coreCli(): Command {
  const config = () => configFromEnv();
  const program = new Command('core')
    .description(
      'Core: the fleet service. Configuration comes from the environment (CORE_DATABASE_URL or CORE_DATA_DIR, CORE_SECRET, ...).',
    )
    .addHelpText('after', '\nExample:\n  npm run --silent core -- serve');

  program
    .command('serve')
    .description('serve the API and the web frontend on CORE_PORT (migrations are applied at start)')
    .addHelpText('after', '\nExample:\n  CORE_PORT=4000 npm run --silent core -- serve')
    .action(async () => {
      const cfg = config();
      await serveCommand(cfg, createCoreLogger(cfg.logLevel));
    });

  program
    .command('migrate')
    .description('apply database migrations')
    .addHelpText('after', '\nExample:\n  npm run --silent core -- migrate')
    .action(async () => {
      const cfg = config();
      await withCore(cfg, createCoreLogger('warn'), async (core) =>
        print({ migrated: true, database: core.database.kind }),
      );
    });

  const userCommand = program.command('user').description('manage local users');
  userCommand
    .command('create')
    .description('create a local user; the password (at least 12 characters) is read from stdin')
    .requiredOption('--email <email>', 'the address the person signs in with', email)
    .requiredOption('--role <role>', 'admin or readonly', role)
    .option('--name <name>', 'display name')
    .addHelpText(
      'after',
      '\nExample:\n  printf %s "$PASSWORD" | npm run --silent core -- user create --email ops@example.com --role admin',
    )
    .action(async (opts: { email: string; role: Role; name?: string }) => {
      const password = await readStdin();
      checkPassword(password); // before opening the database
      const cfg = config();
      const user = await withCore(cfg, createCoreLogger('warn'), (core) =>
        createLocalUser(core.db, { email: opts.email, password, role: opts.role, name: opts.name }, CLI_ACTOR),
      );
      print({ id: user.id, email: user.email, role: user.role });
    });
  userCommand
    .command('set-password')
    .description(
      "set a local user's password, read from stdin (at least 12 characters); ends their sessions and device tokens",
    )
    .requiredOption('--email <email>', 'the address the person signs in with', email)
    .addHelpText(
      'after',
      '\nExample:\n  printf %s "$PASSWORD" | npm run --silent core -- user set-password --email ops@example.com',
    )
    .action(async (opts: { email: string }) => {
      const password = await readStdin(
        'give the password on stdin, e.g. printf %s "$PASSWORD" | npm run --silent core -- user set-password ...',
      );
      checkPassword(password); // before opening the database
      const updated = await withCore(config(), createCoreLogger('warn'), async (core) => {
        const found = await findLocalUserByEmail(core.db, opts.email);
        if (!found) throw new Error(`no local user signs in as ${opts.email} (core user create adds one)`);
        return updateUser(core.db, found.id, { password }, CLI_ACTOR);
      });
      print({ id: updated.id, email: updated.email, role: updated.role, password: 'changed' });
    });

  program
    .command('token')
    .description('manage machine tokens')
    .command('create')
    .description('create a machine token (svm_); the token is printed this once')
    .requiredOption('--name <name>', 'what the token is for')
    .requiredOption('--role <role>', 'admin or readonly', role)
    .option(
      '--expires-in-days <days>',
      'a whole number from 1 to 365; leave it out for a token that never expires',
      expiresInDays,
    )
    .addHelpText(
      'after',
      '\nExample:\n  npm run --silent core -- token create --name ci --role readonly --expires-in-days 30',
    )
    .action(async (opts: { name: string; role: Role; expiresInDays?: number }) => {
      const cfg = config();
      const token = await withCore(cfg, createCoreLogger('warn'), (core) =>
        createMachineToken(
          core.db,
          { name: opts.name, role: opts.role, expiresInDays: opts.expiresInDays ?? null, createdBy: 'cli' },
          CLI_ACTOR,
        ),
      );
      print({ id: token.id, token: token.token, role: token.role, expires_at: token.expires_at });
    });

  program
    .command('secret')
    .description('manage the master secret')
    .command('rotate')
    .description('re-seal every stored secret under a new master secret, read from stdin, in one transaction')
    .addHelpText('after', '\nExample:\n  openssl rand -base64 32 | npm run --silent core -- secret rotate')
    .action(async () => {
      const onTty =
        'give the new master secret on stdin, e.g. openssl rand -base64 32 | npm run --silent core -- secret rotate';
      const next = (await readStdin(onTty)).trim();
      if (!next) throw new Error('the new master secret on stdin is empty');
      const cfg = config();
      const result = await withCore(cfg, createCoreLogger('warn'), (core) =>
        rotateMasterSecret(core.db, core.masterSecret, next),
      );
      print(rotationReport(result, 'CORE_SECRET', 'Core'));
    });

  return program;
}

function print(value: unknown) {
  process.stdout.write(JSON.stringify(value) + '\n');
}

process.exitCode = await runCli(coreCli(), process.argv.slice(2), 'core');
