/** The rows behind a secret (svh_, svp_), read by its SHA-256: what the resolver checks and the cache keeps. */
import { and, eq, sql } from 'drizzle-orm';
import { getDb, type Db } from '../db/client';
import { instanceKeys, instanceReports, organizations, personalAccessTokens, scriptTokens, users } from '../db/schema';
import { apiTokenEnded, sameMembership } from '../domain/pats';

export type InstanceKeyRow = { id: string; name: string; orgId: string; status: string; orgStatus: string };

/** The instance keys of these secret hashes, by hash: one statement for one key or for a refresh of thousands. */
export async function instanceKeyRows(hashes: string[]): Promise<Map<string, InstanceKeyRow>> {
  const db = await getDb();
  const rows = await db
    .select({
      hash: instanceKeys.keyHash,
      id: instanceKeys.id,
      name: instanceKeys.name,
      orgId: instanceKeys.orgId,
      status: instanceKeys.status,
      orgStatus: organizations.status,
    })
    .from(instanceKeys)
    .innerJoin(organizations, eq(organizations.id, instanceKeys.orgId))
    // One array parameter however many (hex digests: nothing to quote in the literal).
    .where(sql`${instanceKeys.keyHash} = any(${`{${hashes.join(',')}}`}::text[])`);
  return new Map(rows.map(({ hash, ...row }) => [hash, row]));
}

export async function loadInstanceKey(hash: string): Promise<InstanceKeyRow | null> {
  return (await instanceKeyRows([hash])).get(hash) ?? null;
}

/** Every /mcp call runs this look-up: a prepared statement, planned once per connection. */
function preparePatLookup(db: Db) {
  return db
    .select({
      tokenId: personalAccessTokens.id,
      userId: personalAccessTokens.userId,
      orgId: personalAccessTokens.orgId,
      instanceKeyId: personalAccessTokens.instanceKeyId,
      revokedAt: personalAccessTokens.revokedAt,
      expiresAt: personalAccessTokens.expiresAt,
      member: sameMembership,
      email: users.email,
      name: users.name,
      orgStatus: organizations.status,
      instanceStatus: instanceKeys.status,
      mcpUrl: instanceReports.mcpUrl,
      scriptTokenId: personalAccessTokens.scriptTokenId,
      apiTokenEnded,
      apiTokenExpiresAt: scriptTokens.expiresAt,
    })
    .from(personalAccessTokens)
    .innerJoin(users, eq(users.id, personalAccessTokens.userId))
    .leftJoin(scriptTokens, eq(scriptTokens.id, personalAccessTokens.scriptTokenId))
    .innerJoin(organizations, eq(organizations.id, personalAccessTokens.orgId))
    .innerJoin(
      instanceKeys,
      and(eq(instanceKeys.id, personalAccessTokens.instanceKeyId), eq(instanceKeys.orgId, personalAccessTokens.orgId)),
    )
    .leftJoin(instanceReports, eq(instanceReports.instanceKeyId, personalAccessTokens.instanceKeyId))
    .where(eq(personalAccessTokens.tokenHash, sql.placeholder('hash')))
    .prepare('resolve_personal_access_token');
}
export type PatRow = Awaited<ReturnType<ReturnType<typeof preparePatLookup>['execute']>>[number];
const patStatements = new WeakMap<Db, ReturnType<typeof preparePatLookup>>();

export async function loadPat(hash: string): Promise<PatRow | null> {
  const db = await getDb();
  let statement = patStatements.get(db);
  if (!statement) patStatements.set(db, (statement = preparePatLookup(db)));
  const [row] = await statement.execute({ hash });
  return row ?? null;
}
