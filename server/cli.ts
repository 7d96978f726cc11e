/**
 * Operator CLI: `npm run --silent hub -- <command>` (`--help` on any command says how to use it).
 * Same configuration as the server; JSON on stdout, errors on stderr. Exit codes: 0 done, 1 the command failed,
 * 2 the command line was wrong (the usage follows the message).
 */
import './cliLogs'; // first: logs to stderr, the result alone on stdout
import { Command, InvalidArgumentError, Option, runCli } from '@shared/cli';
import { eq } from 'drizzle-orm';
import { config } from './config';
import { closeDatabase, getDatabase, getDb } from './db/client';
import { users } from './db/schema';
import { rotationReport } from '@shared/seal/master';
import { rotateMasterSecret } from './db/sealed';
import { seedDemoCatalog } from './api/demoCatalog';
import { issueScriptToken, SCRIPT_TOKEN_MAX_TTL_SECONDS } from './domain/scriptTokens';
import { normalizeEmail, upsertUserByEmail } from './domain/users';

/** `hub token --ttl` at most 30 days: like GitLab's and GitHub's expiring tokens, a leaked one dies within a month. */
const CLI_TOKEN_MAX_TTL_SECONDS = SCRIPT_TOKEN_MAX_TTL_SECONDS;

/** The new master secret, from stdin (never an argument: it would show in the process list and shell history). */
async function readStdin(): Promise<string> {
  if (process.stdin.isTTY)
    throw new Error(
      'give the new master secret on stdin, e.g. openssl rand -base64 32 | npm run --silent hub -- secret rotate',
    );
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const value = Buffer.concat(chunks).toString('utf8').trim();
  if (!value) throw new Error('the new master secret on stdin is empty');
  return value;
}

function email(value: string): string {
  if (!/^[^\s@]+@[^\s@]+$/.test(value)) throw new InvalidArgumentError('--email must be an email address');
  return value;
}

function ttlSeconds(value: string): number {
  const ttl = Number(value);
  if (!/^\d+$/.test(value) || ttl < 1 || ttl > CLI_TOKEN_MAX_TTL_SECONDS) {
    throw new InvalidArgumentError(
      `--ttl must be a whole number of seconds from 1 to ${CLI_TOKEN_MAX_TTL_SECONDS} (30 days)`,
    );
  }
  return ttl;
}

function label(value: string): string {
  if (value.trim().length > 100) throw new InvalidArgumentError('--label must be at most 100 characters');
  return value;
}

function print(result: unknown) {
  process.stdout.write(JSON.stringify(result, null, 2) + '\n');
}

export function hubCli(): Command {
  const program = new Command('hub')
    .description('The Hub operator CLI: same configuration as the server (DATABASE_URL or HUB_DATA_DIR, HUB_SECRET).')
    .addHelpText(
      'after',
      '\nExample:\n  npm run --silent hub -- user create --email ops@example.com --role superadmin',
    );

  program
    .command('migrate')
    .description('apply database migrations')
    .addHelpText('after', '\nExample:\n  npm run --silent hub -- migrate')
    .action(async () => {
      const database = await getDatabase(); // opening applies migrations
      print({ migrated: true, database: database.kind });
    });

  const user = program.command('user').description('manage users');
  user
    .command('create')
    .description('create a user, or update the name and role of the user with that email')
    .requiredOption('--email <email>', 'the address the person signs in with', email)
    .option('--name <name>', 'display name')
    .addOption(new Option('--role <role>', 'platform role').choices(['user', 'admin', 'superadmin']))
    .addHelpText('after', '\nExample:\n  npm run --silent hub -- user create --email ops@example.com --role superadmin')
    .action(async (opts: { email: string; name?: string; role?: 'user' | 'admin' | 'superadmin' }) => {
      const created = await upsertUserByEmail({
        email: opts.email,
        name: opts.name,
        role: opts.role as 'user' | undefined,
      });
      print({ id: created.id, email: created.email, name: created.name, role: created.role, org_id: created.orgId });
    });

  program
    .command('token')
    .description(
      'print a Hub JWT for a user (recorded: listed and revocable in the dashboard and at /api/v1/account/api-tokens)',
    )
    .requiredOption('--email <email>', 'the user the token acts for', email)
    .option(
      '--ttl <seconds>',
      `lifetime in seconds, 1 to ${CLI_TOKEN_MAX_TTL_SECONDS} (default: HUB_JWT_TTL_SECONDS)`,
      ttlSeconds,
    )
    .option('--label <label>', 'what the token is for, shown in the token list (at most 100 characters)', label)
    .addHelpText(
      'after',
      '\nExample:\n  TOKEN=$(npm run --silent hub -- token --email ops@example.com --ttl 3600 --label "deploy pipeline")',
    )
    .action(async (opts: { email: string; ttl?: number; label?: string }) => {
      const db = await getDb();
      const [found] = await db
        .select({ id: users.id, orgId: users.orgId })
        .from(users)
        .where(eq(users.email, normalizeEmail(opts.email)));
      if (!found) throw new Error(`no user with email ${opts.email}; create it with "hub user create"`);
      const issued = await issueScriptToken({
        userId: found.id,
        source: 'cli',
        label: opts.label,
        ttlSeconds: opts.ttl ?? Math.min(config.jwtTtlSeconds, CLI_TOKEN_MAX_TTL_SECONDS),
        actor: { kind: 'system', id: 'cli' },
        orgId: found.orgId,
      });
      process.stdout.write(issued.token + '\n');
    });

  program
    .command('seed')
    .description('load the demo catalog (idempotent)')
    .addHelpText('after', '\nExample:\n  npm run --silent hub -- seed')
    .action(async () => print(await seedDemoCatalog()));

  program
    .command('secret')
    .description('manage the master secret')
    .command('rotate')
    .description('re-seal every stored secret under a new master secret, read from stdin, in one transaction')
    .addHelpText('after', '\nExample:\n  openssl rand -base64 32 | npm run --silent hub -- secret rotate')
    .action(async () => {
      const next = await readStdin();
      const database = await getDatabase();
      if (database.throughSocket) {
        throw new Error(
          `a running Hub holds the data folder ${config.dataDir}: stop it first, then rotate (it keeps the old secret in memory)`,
        );
      }
      const result = await rotateMasterSecret(database.db, next);
      print(rotationReport(result, 'HUB_SECRET', 'Hub'));
    });

  return program;
}

const code = await runCli(hubCli(), process.argv.slice(2), 'hub');
await closeDatabase().catch(() => {});
process.exit(code);
