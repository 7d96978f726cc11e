/**
 * Operator CLI: `npm run --silent hub -- <command>`. Same configuration as the server; JSON on stdout,
 * errors on stderr with a non-zero exit.
 *
 *   migrate                                   apply database migrations
 *   user create --email E [--name N] [--role user|admin|superadmin]
 *   token --email E [--ttl SECONDS] [--label L]  print a Hub JWT for that user (recorded: listed and revocable
 *                                             in the dashboard and at /api/v1/account/api-tokens)
 *   seed                                      load the demo catalog (idempotent)
 */
import { parseArgs } from 'node:util';
import { eq } from 'drizzle-orm';
import { config } from './config';
import { closeDatabase, getDatabase, getDb } from './db/client';
import { users } from './db/schema';
import { seedCatalog } from './domain/catalog/seed';
import { issueScriptToken, SCRIPT_TOKEN_MAX_TTL_SECONDS } from './domain/scriptTokens';
import { normalizeEmail, upsertUserByEmail } from './domain/users';

/** `hub token --ttl` at most 30 days. */
const CLI_TOKEN_MAX_TTL_SECONDS = SCRIPT_TOKEN_MAX_TTL_SECONDS;

const USAGE = `usage: hub <command>
  migrate
  user create --email E [--name N] [--role user|admin|superadmin]
  token --email E [--ttl SECONDS] [--label L]
  seed`;

class UsageError extends Error {}

function flags(args: string[], options: Record<string, { type: 'string' }>) {
  try {
    return parseArgs({ args, options, strict: true, allowPositionals: false }).values as Record<string, string | undefined>;
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

async function run(argv: string[]): Promise<unknown> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'migrate': {
      const database = await getDatabase(); // opening applies migrations
      return { migrated: true, database: database.kind };
    }
    case 'user': {
      if (rest[0] !== 'create') throw new UsageError('expected "user create"');
      const f = flags(rest.slice(1), { email: { type: 'string' }, name: { type: 'string' }, role: { type: 'string' } });
      if (!f.email || !/^[^\s@]+@[^\s@]+$/.test(f.email)) throw new UsageError('--email must be an email address');
      if (f.role && !['user', 'admin', 'superadmin'].includes(f.role)) throw new UsageError('--role must be user, admin or superadmin');
      const user = await upsertUserByEmail({ email: f.email, name: f.name, role: f.role as 'user' | undefined });
      return { id: user.id, email: user.email, name: user.name, role: user.role, org_id: user.orgId };
    }
    case 'token': {
      const f = flags(rest, { email: { type: 'string' }, ttl: { type: 'string' }, label: { type: 'string' } });
      if (!f.email) throw new UsageError('--email is required');
      const ttl = f.ttl === undefined ? undefined : Number(f.ttl);
      // Capped like GitLab's and GitHub's expiring tokens: a leaked script token dies within a month.
      if (ttl !== undefined && (!Number.isInteger(ttl) || ttl < 1 || ttl > CLI_TOKEN_MAX_TTL_SECONDS)) {
        throw new UsageError(`--ttl must be a whole number of seconds from 1 to ${CLI_TOKEN_MAX_TTL_SECONDS} (30 days)`);
      }
      const db = await getDb();
      const [user] = await db.select({ id: users.id, orgId: users.orgId }).from(users).where(eq(users.email, normalizeEmail(f.email)));
      if (!user) throw new Error(`no user with email ${f.email}; create it with "hub user create"`);
      if (f.label !== undefined && f.label.trim().length > 100) throw new UsageError('--label must be at most 100 characters');
      const issued = await issueScriptToken({
        userId: user.id,
        source: 'cli',
        label: f.label,
        ttlSeconds: ttl ?? Math.min(config.jwtTtlSeconds, CLI_TOKEN_MAX_TTL_SECONDS),
        actor: { kind: 'system', id: 'cli' },
        orgId: user.orgId,
      });
      process.stdout.write(issued.token + '\n');
      return undefined;
    }
    case 'seed':
      return seedCatalog();
    default:
      throw new UsageError(command ? `unknown command "${command}"` : 'no command given');
  }
}

run(process.argv.slice(2))
  .then(async (result) => {
    if (result !== undefined) process.stdout.write(JSON.stringify(result, null, 2) + '\n');
    await closeDatabase();
  })
  .catch(async (err: Error) => {
    process.stderr.write(`hub: ${err.message}\n${err instanceof UsageError ? USAGE + '\n' : ''}`);
    await closeDatabase().catch(() => {});
    process.exit(err instanceof UsageError ? 64 : 1);
  });
