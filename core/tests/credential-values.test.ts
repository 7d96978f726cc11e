/**
 * Literal values that carry a credential (issue 34): `SONAR_JDBC_URL=jdbc:postgresql://db/sonar?password=…` is
 * refused on every way a deployment literal enters (REST create and update, the MCP tool), with how to bind a
 * secret instead; and a deployment row and activity entries planted in the database as earlier versions wrote
 * them are migrated at start: the literal becomes a sealed secret and a binding, the entries are redacted, a
 * readonly reader of /deployments, /activity and /overview never sees the value.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { issueSecret } from '@shared/tokens';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activity, deployments, hubConnection } from '../src/db/schema';
import { applySync, type CatalogTemplate } from '../src/domain/catalog';
import { moveCredentialValues } from '../src/domain/credentialLiterals';
import { freshDatabase, localUser, startCore, TEMP_ADMIN, type TestCore } from './helpers';

const JDBC = 'jdbc:postgresql://db/sonar?password=JdbcS3cret';
const DELETED = 'postgres://app:DeletedDeploymentS3cret@db/app';
// Percent-encoded, in a variable whose name says nothing: only the decoded value shows the credential.
const ENCODED = '-Dsonar.jdbc.url=jdbc%3Apostgresql%3A%2F%2Fdb%2Fsonar%3Fpassword%3DEncodedS3cret';
const NAMED = 'planted-named-credential-5e1c';
// A YAML-shaped value and a token as a URL's whole userinfo, in variables whose names say nothing.
const YAML = 'database:\n  host: db\n  password: YamlS3cret\n';
const GIT = 'https://ghp_UrlT0kenS3cretAbCdEf0123456789@github.com/org/app.git';
const GONE_YAML = 'api:\n  token: "GoneYamlT0ken"\n';
const GONE_GIT = 'https://glpat-GoneUrlT0kenAbCdEf12@gitlab.example/app.git';
const MASTER = 'credential-values-test-master-secret-0123';

let t: TestCore;
let admin: string;
let store: Awaited<ReturnType<typeof freshDatabase>>;
let dataDir: string | null = null;
let sonarId: string;
let firstLogs: string[] = [];

const template: CatalogTemplate = {
  id: randomUUID(),
  slug: 'sonarqube',
  name: 'SonarQube',
  description: 'code quality',
  version: '10',
  category_slug: 'dev',
  updated_at: new Date().toISOString(),
  env: [],
  env_schema: [
    { name: 'SONAR_JDBC_URL', required: false, default_value: '', description: 'database URL' },
    { name: 'SONAR_JDBC_PASSWORD', required: false, default_value: '', description: 'database password' },
    { name: 'JAVA_OPTS', required: false, default_value: '', description: 'JVM options' },
    { name: 'TZ', required: false, default_value: 'UTC', description: 'time zone' },
    { name: 'APP_CONFIG', required: false, default_value: '', description: 'settings file' },
    { name: 'GIT_REMOTE', required: false, default_value: '', description: 'repository' },
  ],
};

async function start() {
  const core = await startCore({ temporaryAdmin: TEMP_ADMIN, secret: MASTER, ...(dataDir ? { dataDir } : {}) }, store);
  const token = (await core.call('POST', '/api/v1/auth/login', { body: TEMP_ADMIN })).body.access_token as string;
  return { core, token };
}

beforeAll(async () => {
  store = await freshDatabase();
  if (!store.databaseUrl) dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'core-credential-values-'));
  const first = await start();
  const db = first.core.core.db;
  const generation = new Date('2026-01-01T00:00:00Z');
  await db
    .insert(hubConnection)
    .values({ hubUrl: 'https://hub.test', keyPrefix: 'svh_test', instanceId: randomUUID(), connectedAt: generation });
  await applySync(db, {
    full: true,
    templates: [template],
    removedIds: [],
    checkedAt: '2026-01-01T00:00:01Z',
    etag: null,
    generation,
  });
  // As an earlier version stored them: a credential in a value, one in a credential-named variable.
  const [row] = await db
    .insert(deployments)
    .values({
      name: 'sonar',
      templateId: template.id,
      templateSlug: template.slug,
      templateVersion: template.version,
      env: { SONAR_JDBC_URL: JDBC, SONAR_JDBC_PASSWORD: NAMED, APP_CONFIG: YAML, GIT_REMOTE: GIT, TZ: 'Europe/Berlin' },
      secretRefs: [],
      createdBy: 'old-code',
    })
    .returning({ id: deployments.id });
  sonarId = row!.id;
  const quoted = { actorKind: 'local', actorId: randomUUID(), actor: 'ops@example.test', via: 'api' };
  await db.insert(activity).values([
    {
      ...quoted,
      action: 'deployment.create',
      targetType: 'deployment',
      targetId: sonarId,
      targetName: 'sonar',
      before: null,
      after: { name: 'sonar', env: { SONAR_JDBC_URL: JDBC, SONAR_JDBC_PASSWORD: NAMED, TZ: 'Europe/Berlin' } },
    },
    {
      ...quoted,
      action: 'deployment.update',
      targetType: 'deployment',
      targetId: sonarId,
      targetName: 'sonar',
      before: { env: { SONAR_JDBC_URL: 'jdbc:postgresql://db/sonar', TZ: 'UTC' } },
      after: { env: { SONAR_JDBC_URL: JDBC, TZ: 'Europe/Berlin' } },
    },
    {
      ...quoted,
      action: 'deployment.restart',
      targetType: 'deployment',
      targetId: sonarId,
      targetName: 'sonar',
      before: null,
      after: { env: { JAVA_OPTS: ENCODED, TZ: 'Europe/Berlin' } },
    },
    // A deployment deleted long ago: its row is gone, its entries still quoted the value.
    {
      ...quoted,
      action: 'deployment.delete',
      targetType: 'deployment',
      targetId: randomUUID(),
      targetName: 'gone',
      before: { name: 'gone', env: { DATABASE_URL: DELETED, TZ: 'UTC' } },
      after: null,
    },
    // Another, quoting only the YAML setting and the URL token: the database's pre-filter must pick it too.
    {
      ...quoted,
      action: 'deployment.delete',
      targetType: 'deployment',
      targetId: randomUUID(),
      targetName: 'gone-yaml',
      before: { name: 'gone-yaml', env: { SETTINGS: GONE_YAML, REMOTE: GONE_GIT, TZ: 'UTC' } },
      after: null,
    },
  ]);
  firstLogs = first.core.logs;
  await first.core.stop();
  ({ core: t, token: admin } = await start());
}, 90_000);

afterAll(async () => {
  await t?.stop();
  await store?.drop();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('a literal carrying a credential', () => {
  const create = (env: Record<string, unknown>, name = 'sonar-new') =>
    t.call('POST', '/api/v1/deployments', { token: admin, body: { name, template_slug: 'sonarqube', env } });

  it('is refused on create with 400 naming the variable and what it carries, saying how to bind a secret', async () => {
    const res = await create({ SONAR_JDBC_URL: JDBC, TZ: 'UTC' });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('BAD_REQUEST');
    expect(res.body.message).toContain(
      'env: SONAR_JDBC_URL (the parameter password=) carries a credential in a literal value',
    );
    expect(res.body.message).toContain('"SONAR_JDBC_URL": {"secret": "<secret name>"}');
    expect(res.body.message).toContain('PUT /api/v1/secrets/<secret name>');
    expect(JSON.stringify(res.body)).not.toContain('JdbcS3cret');

    const several = await create({
      SONAR_JDBC_URL: 'postgres://sonar:pw@db/sonar',
      JAVA_OPTS: `-Dtoken.header=${issueSecret('svp_').secret}`,
    });
    expect(several.status).toBe(400);
    expect(several.body.message).toContain(
      'SONAR_JDBC_URL (a password in a URL (user:password@host)), JAVA_OPTS (a Hub personal access token (svp_…)) carry credentials',
    );
    const settings = await create({ APP_CONFIG: YAML, GIT_REMOTE: GIT });
    expect(settings.status).toBe(400);
    expect(settings.body.message).toContain(
      'APP_CONFIG (the setting password:), GIT_REMOTE (a token in a URL (token@host)) carry credentials',
    );
    expect(JSON.stringify(settings.body)).not.toMatch(/YamlS3cret|UrlT0kenS3cret/);
    // Prose, a reference and a user name stay literals.
    const plain = await create(
      { APP_CONFIG: 'password: ${DB_PASSWORD}', GIT_REMOTE: 'https://git@github.com/org/app.git', TZ: 'UTC' },
      'sonar-plain',
    );
    expect(plain.status).toBe(201);
    const key = await create({ JAVA_OPTS: '-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----' });
    expect(key.body.message).toContain('JAVA_OPTS (a private key');
    const list = (await t.call('GET', '/api/v1/deployments', { token: admin })).body.deployments;
    expect(list.map((d: { name: string }) => d.name)).not.toContain('sonar-new');
  });

  it('is refused on update, and through the MCP create_deployment tool; a binding to a secret holding it is taken', async () => {
    const put = await t.call('PUT', `/api/v1/deployments/${sonarId}`, {
      token: admin,
      body: { env: { SONAR_JDBC_URL: 'jdbc:postgresql://db/sonar?user=sonar&Password=Upd4ted', TZ: 'UTC' } },
    });
    expect(put.status).toBe(400);
    expect(put.body.message).toContain('SONAR_JDBC_URL (the parameter Password=) carries a credential');

    const machine = await t.call('POST', '/api/v1/tokens', {
      token: admin,
      body: { name: 'mcp-admin', role: 'admin' },
    });
    const client = new Client({ name: 'credential-values', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${machine.body.token}` } },
      }),
    );
    const result = (await client.callTool({
      name: 'create_deployment',
      arguments: { name: 'sonar-mcp', template_slug: 'sonarqube', env: { SONAR_JDBC_URL: JDBC } },
    })) as { isError?: boolean; content: { text: string }[] };
    await client.close();
    expect(result.isError).toBe(true);
    expect(result.content[0]!.text).toContain('SONAR_JDBC_URL (the parameter password=) carries a credential');
    expect(result.content[0]!.text).not.toContain('JdbcS3cret');

    expect((await t.call('PUT', '/api/v1/secrets/sonar.jdbc', { token: admin, body: { value: JDBC } })).status).toBe(
      200,
    );
    const bound = await create({ SONAR_JDBC_URL: { secret: 'sonar.jdbc' }, JAVA_OPTS: '-Xmx1g', TZ: 'UTC' });
    expect(bound.status).toBe(201);
    expect(bound.body.env.SONAR_JDBC_URL).toEqual({ secret: 'sonar.jdbc' });
  });
});

describe('literals stored by earlier versions', () => {
  it('moved into sealed secrets and bindings at start; the activity entries that quoted them are redacted', async () => {
    const sonar = (await t.call('GET', `/api/v1/deployments/${sonarId}`, { token: admin })).body;
    expect(sonar.env).toEqual({
      SONAR_JDBC_URL: { secret: 'deploy.sonar.SONAR_JDBC_URL' },
      SONAR_JDBC_PASSWORD: { secret: 'deploy.sonar.SONAR_JDBC_PASSWORD' },
      APP_CONFIG: { secret: 'deploy.sonar.APP_CONFIG' },
      GIT_REMOTE: { secret: 'deploy.sonar.GIT_REMOTE' },
      TZ: 'Europe/Berlin',
    });
    expect((await t.call('GET', '/api/v1/secrets/deploy.sonar.APP_CONFIG', { token: admin })).body.value).toBe(YAML);
    expect((await t.call('GET', '/api/v1/secrets/deploy.sonar.GIT_REMOTE', { token: admin })).body.value).toBe(GIT);
    const secret = await t.call('GET', '/api/v1/secrets/deploy.sonar.SONAR_JDBC_URL', { token: admin });
    expect(secret.body.value).toBe(JDBC);
    expect((await t.call('GET', '/api/v1/secrets/deploy.sonar.SONAR_JDBC_PASSWORD', { token: admin })).body.value).toBe(
      NAMED,
    );

    const entries = (await t.call('GET', '/api/v1/activity?limit=100', { token: admin })).body.entries;
    const created = entries.find((e: any) => e.action === 'deployment.create' && e.target.id === sonarId);
    expect(created.after.env).toEqual({
      SONAR_JDBC_URL: '[redacted: moved to secret deploy.sonar.SONAR_JDBC_URL]',
      SONAR_JDBC_PASSWORD: '[redacted: moved to secret deploy.sonar.SONAR_JDBC_PASSWORD]',
      TZ: 'Europe/Berlin',
    });
    const updated = entries.find((e: any) => e.action === 'deployment.update' && e.target.id === sonarId);
    expect(updated.before.env.SONAR_JDBC_URL).toBe('jdbc:postgresql://db/sonar');
    const restarted = entries.find((e: any) => e.action === 'deployment.restart' && e.target.id === sonarId);
    expect(restarted.after.env).toEqual({ JAVA_OPTS: '[redacted]', TZ: 'Europe/Berlin' });
    const gone = entries.find((e: any) => e.target.name === 'gone' && e.action === 'deployment.delete');
    expect(gone.before.env).toEqual({ DATABASE_URL: '[redacted]', TZ: 'UTC' });
    const goneYaml = entries.find((e: any) => e.target.name === 'gone-yaml' && e.action === 'deployment.delete');
    expect(goneYaml.before.env).toEqual({ SETTINGS: '[redacted]', REMOTE: '[redacted]', TZ: 'UTC' });

    const moved = entries.find((e: any) => e.action === 'deployment.credentials_moved');
    expect(moved).toMatchObject({
      actor: { kind: 'system', id: 'system', label: 'system' },
      via: 'system',
      target: { type: 'deployment', id: sonarId, name: 'sonar' },
      after: {
        env: {
          SONAR_JDBC_URL: { secret: 'deploy.sonar.SONAR_JDBC_URL' },
          SONAR_JDBC_PASSWORD: { secret: 'deploy.sonar.SONAR_JDBC_PASSWORD' },
          APP_CONFIG: { secret: 'deploy.sonar.APP_CONFIG' },
          GIT_REMOTE: { secret: 'deploy.sonar.GIT_REMOTE' },
        },
        redacted_activity_entries: 3,
      },
    });
    for (const name of ['gone', 'gone-yaml']) {
      expect(
        entries.find((e: any) => e.action === 'deployment.activity_redacted' && e.target.name === name),
        name,
      ).toMatchObject({ after: { redacted_activity_entries: 1 } });
    }

    expect(t.logs.join('\n')).toMatch(
      /sonar\.SONAR_JDBC_URL -> deploy\.sonar\.SONAR_JDBC_URL.*moved credential literals/,
    );
    expect(firstLogs.join('\n')).not.toMatch(/moved credential literals/);
    // Idempotent: nothing left to move or redact.
    expect(await moveCredentialValues(t.core.db, t.core.sealer)).toEqual({ moved: [], redacted: 0 });
  });

  it('a readonly person reading /deployments, /activity and /overview never sees a planted value', async () => {
    const reader = await localUser(t, admin, 'readonly');
    const seen: string[] = [];
    for (const p of [
      '/api/v1/deployments',
      `/api/v1/deployments/${sonarId}`,
      '/api/v1/activity?limit=100',
      '/api/v1/overview',
    ]) {
      const res = await t.call('GET', p, { token: reader.token });
      expect(res.status, p).toBe(200);
      seen.push(JSON.stringify(res.body));
    }
    const all = seen.join('\n');
    expect(all).toContain('deploy.sonar.SONAR_JDBC_URL'); // it read the migrated deployment
    for (const planted of [
      'JdbcS3cret',
      'DeletedDeploymentS3cret',
      'EncodedS3cret',
      NAMED,
      'YamlS3cret',
      'UrlT0kenS3cret',
      'GoneYamlT0ken',
      'GoneUrlT0ken',
    ]) {
      expect(all).not.toContain(planted);
      expect(t.logs.join('\n')).not.toContain(planted);
    }
  });
});
