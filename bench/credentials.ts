/**
 * Real credentials for the bench, made by the Hub's own code on the bench database (DATABASE_URL and
 * HUB_URL must be set before the first call): instance keys (createInstanceKey), a platform admin and
 * their JWT (upsertUserByEmail, signUserToken), and for the MCP scenario a member who mints a personal
 * access token (mintPat) for an instance whose MCP URL is registered.
 */
import { createPrivateKey, type JsonWebKey } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Sql } from 'postgres';
import { getDb } from '../server/db/client';
import { createInstanceKey } from '../server/domain/instanceKeys';
import { publicJwks, signJwt, signUserToken } from '../server/domain/jwt';
import { decryptSecret, sealedFields } from '../server/domain/sealing';
import { upsertUserByEmail } from '../server/domain/users';
import type { OrgSeed } from './seed';

export interface InstanceKeyCred {
  id: string;
  orgId: string;
  secret: string;
}

export async function makeInstanceKeys(orgs: OrgSeed[], perOrg: number): Promise<InstanceKeyCred[]> {
  const db = await getDb();
  const keys: InstanceKeyCred[] = [];
  for (const org of orgs) {
    for (let n = 1; n <= perOrg; n++) {
      const { key, secret } = await createInstanceKey(db, { orgId: org.id, name: `${org.slug}-core-${n}` });
      keys.push({ id: key.id, orgId: org.id, secret });
    }
  }
  return keys;
}

export async function makeAdminJwt(ttlSeconds: number): Promise<string> {
  const admin = await upsertUserByEmail({ email: 'bench-admin@example.com', name: 'Bench Admin', role: 'admin' });
  return signUserToken(admin.id, ttlSeconds);
}

export interface McpSetup {
  /** The personal access token the AI client sends to /mcp. */
  pat: string;
  /** A Hub assertion for calling the upstream directly (what the proxy would send). */
  directAssertion: string;
  instanceKeyId: string;
  jwks: unknown;
  /** The Hub's signing key (PKCS#8 PEM) and its kid, for the same-work proxy's assertions (bench/same-work-proxy.mjs). */
  signingKey: { pem: string; kid: string };
}

/**
 * Null with a reason when the MCP proxy is not part of this Hub (no server/http/mcp/proxy.ts, or no mintPat):
 * the scenario is then reported as not applicable and starts working once those exist.
 */
export async function makeMcpSetup(
  pg: Sql,
  root: string,
  org: OrgSeed,
  instanceKeyId: string,
  mcpUrl: string,
  ttlSeconds: number,
): Promise<McpSetup | { unavailable: string }> {
  if (!fs.existsSync(path.join(root, 'server/http/mcp/proxy.ts')))
    return { unavailable: 'the Hub has no MCP proxy (server/http/mcp/proxy.ts) yet' };
  let mintPat:
    | ((user: unknown, input: { name: string; instanceId: string }) => Promise<{ id: string; secret: string }>)
    | undefined;
  try {
    mintPat = ((await import('../server/domain/pats')) as Record<string, unknown>).mintPat as typeof mintPat;
  } catch (err) {
    return {
      unavailable: `personal access tokens are not available (server/domain/pats.ts: ${(err as Error).message})`,
    };
  }
  if (typeof mintPat !== 'function') return { unavailable: 'server/domain/pats.ts exports no mintPat' };

  const [user] = await pg<{ id: string; email: string; name: string }[]>`
    insert into users (email, name, role, org_id, org_role, org_joined_at)
    values ('bench-mcp@example.com', 'Bench Assistant User', 'user', ${org.id}, 'admin', now())
    on conflict (email) do update set org_id = excluded.org_id -- a database kept from an earlier run (--keep-db)
    returning id, email, name`;
  const principal = {
    kind: 'user',
    userId: user!.id,
    email: user!.email,
    name: user!.name,
    role: 'user',
    orgId: org.id,
    orgRole: 'admin',
  };
  const pat = await mintPat(principal, { name: 'bench assistant', instanceId: instanceKeyId });
  await pg`insert into instance_reports (instance_key_id, mcp_url, version, hostname) values (${instanceKeyId}, ${mcpUrl}, 'bench', 'bench-instance')
           on conflict (instance_key_id) do update set mcp_url = excluded.mcp_url`;
  const directAssertion = await signJwt({
    subject: user!.id,
    audience: instanceKeyId,
    ttlSeconds,
    claims: { email: user!.email, name: user!.name, org_id: org.id, token_id: pat.id, instance_id: instanceKeyId },
  });
  // The key the Hub signs with (server/domain/jwt.ts: the oldest stored one), opened as the Hub opens it.
  const [stored] = await pg<{ kid: string; private_jwk_enc: string }[]>`
    select kid, private_jwk_enc from signing_keys order by created_at, kid limit 1`;
  const privateJwk = JSON.parse(await decryptSecret(sealedFields.jwtSigningKey(stored!.kid), stored!.private_jwk_enc));
  const pem = createPrivateKey({ key: privateJwk as JsonWebKey, format: 'jwk' }).export({
    type: 'pkcs8',
    format: 'pem',
  });
  return {
    pat: pat.secret,
    directAssertion,
    instanceKeyId,
    jwks: await publicJwks(),
    signingKey: { pem: String(pem), kid: stored!.kid },
  };
}
