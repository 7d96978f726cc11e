/**
 * Test harness: a real Core HTTP server (in this process, port 0) on a fresh database — PGlite in
 * memory, or a new PostgreSQL database when CORE_TEST_DATABASE_URL is set — with its logs captured.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import path from 'node:path';
import postgres from 'postgres';
import { expect } from 'vitest';
import { configFromEnv, type CoreConfig } from '../src/config';
import { createCoreContext, type CoreContext } from '../src/context';
import { hubConnection } from '../src/db/schema';
import { applySync, type CatalogTemplate } from '../src/domain/catalog';
import { startServer } from '../src/http/server';
import { createCoreLogger } from '../src/log';

export const PG_SERVER = process.env.CORE_TEST_DATABASE_URL;
export const DB_KIND = PG_SERVER ? 'postgres' : 'pglite';

/** A fresh PostgreSQL database (or null for PGlite); drop() removes it. */
export async function freshDatabase(
  server = PG_SERVER,
): Promise<{ databaseUrl: string | null; drop(): Promise<void> }> {
  if (!server) return { databaseUrl: null, drop: async () => {} };
  const name = `core_test_${Date.now()}_${randomBytes(4).toString('hex')}`;
  const admin = postgres(server, { max: 1, onnotice: () => {} });
  // A copy of the run's migrated template (tests/global-setup.ts) on the run's own server; a fresh one elsewhere.
  const template = server === PG_SERVER ? process.env.CORE_TEST_TEMPLATE_DATABASE : undefined;
  await admin.unsafe(template ? `create database ${name} template ${template}` : `create database ${name}`);
  await admin.end();
  const url = new URL(server);
  url.pathname = `/${name}`;
  return {
    databaseUrl: url.toString(),
    drop: async () => {
      const a = postgres(server, { max: 1, onnotice: () => {} });
      await a.unsafe(`drop database if exists ${name} with (force)`);
      await a.end();
    },
  };
}

export function testConfig(overrides: Partial<CoreConfig> = {}): CoreConfig {
  // No container engine unless a test asks for one (tests/engine).
  const base = configFromEnv({
    CORE_LOG_LEVEL: 'debug',
    CORE_RUNTIME: 'none',
    CORE_TEST_PGLITE_SNAPSHOT: process.env.CORE_TEST_PGLITE_SNAPSHOT, // tests/global-setup.ts
  });
  return {
    ...base,
    url: 'http://core.test',
    dataDir: null,
    databaseUrl: null,
    secret: 'test-master-secret-' + randomBytes(8).toString('hex'),
    webDist: path.join(import.meta.dirname, 'no-web-dist'),
    ...overrides,
  };
}

export interface TestCore {
  url: string;
  core: CoreContext;
  logs: string[];
  call(
    method: string,
    p: string,
    opts?: { token?: string; body?: unknown; headers?: Record<string, string> },
  ): Promise<{ status: number; body: any; headers: Headers }>;
  stop(): Promise<void>;
}

export async function startCore(
  overrides: Partial<CoreConfig> = {},
  database?: { databaseUrl: string | null },
): Promise<TestCore> {
  const config = testConfig({ databaseUrl: database?.databaseUrl ?? null, ...overrides });
  const logs: string[] = [];
  const core = await createCoreContext(
    config,
    createCoreLogger('debug', (l) => logs.push(l)),
  );
  const server = await startServer(core, { port: 0, host: '127.0.0.1' });
  return {
    url: server.url,
    core,
    logs,
    async call(method, p, opts = {}) {
      const headers: Record<string, string> = { ...opts.headers };
      if (opts.token !== undefined) headers.authorization = `Bearer ${opts.token}`;
      let body: string | undefined;
      if (opts.body !== undefined) {
        headers['content-type'] ??= 'application/json';
        body = typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
      }
      const res = await fetch(server.url + p, { method, headers, body });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        /* not JSON */
      }
      return { status: res.status, body: parsed, headers: res.headers };
    },
    stop: () => server.close(),
  };
}

export const ADMIN_PASSWORD = 'correct horse battery staple';

/** Creates a local user through the API and signs them in; returns their access token. */
export async function localUser(
  t: TestCore,
  adminToken: string,
  role: 'admin' | 'readonly',
  email = `${role}-${randomBytes(3).toString('hex')}@example.test`,
) {
  const created = await t.call('POST', '/api/v1/users', {
    token: adminToken,
    body: { email, password: ADMIN_PASSWORD, role },
  });
  if (created.status !== 201) throw new Error(`user create: ${created.status} ${JSON.stringify(created.body)}`);
  const session = await t.call('POST', '/api/v1/auth/login', { body: { username: email, password: ADMIN_PASSWORD } });
  if (session.status !== 200) throw new Error(`login: ${session.status} ${JSON.stringify(session.body)}`);
  return {
    id: created.body.id as string,
    email,
    token: session.body.access_token as string,
    refresh: session.body.refresh_token as string,
  };
}

export const TEMP_ADMIN = { username: 'root', password: 'temporary admin password' };

/** A Core with the temporary admin on a fresh database, signed in: a test file's usual start. */
export async function coreWithAdmin(overrides: Partial<CoreConfig> = {}) {
  const db = await freshDatabase();
  const t = await startCore({ temporaryAdmin: TEMP_ADMIN, ...overrides }, db);
  const admin = (await t.call('POST', '/api/v1/auth/login', { body: TEMP_ADMIN })).body.access_token as string;
  return {
    t,
    admin,
    async stop() {
      await t.stop();
      await db.drop();
    },
  };
}

/** The one error shape of both services: {code (tRPC's names), message, request_id, issues?}, the id as in X-Request-Id. */
/**
 * Cores started one per case, each on a fresh database of its own: `start(overrides)` starts one, `stopAll()`
 * (in afterAll) stops every one and drops its database.
 */
export function corePerCase() {
  const started: { t: TestCore; db: Awaited<ReturnType<typeof freshDatabase>> }[] = [];
  return {
    async start(overrides: Partial<CoreConfig>): Promise<TestCore> {
      const db = await freshDatabase();
      const t = await startCore(overrides, db);
      started.push({ t, db });
      return t;
    },
    async stopAll() {
      for (const { t, db } of started.splice(0)) {
        await t.stop();
        await db.drop();
      }
    },
  };
}

export function expectErrorShape(res: { status: number; body: any; headers: Headers }, label = '') {
  const requestId = res.headers.get('x-request-id');
  expect(requestId, label).toMatch(/^[A-Za-z0-9._:-]{8,128}$/);
  expect(res.body, label).toEqual({
    code: expect.stringMatching(/^[A-Z_]+$/),
    message: expect.any(String),
    request_id: requestId,
    ...(res.body && 'reason' in res.body ? { reason: expect.any(String) } : {}),
    ...(res.body && 'issues' in res.body ? { issues: expect.any(Array) } : {}),
  });
}

/** The catalog as if synced from a Hub (a connection row first, when there is none): what a deployment needs. */
export async function syncCatalog(t: TestCore, templates: CatalogTemplate[]) {
  const generation = new Date('2026-01-01T00:00:00Z');
  const [conn] = await t.core.db.select().from(hubConnection);
  if (!conn)
    await t.core.db
      .insert(hubConnection)
      .values({ hubUrl: 'https://hub.test', keyPrefix: 'svh_test', instanceId: randomUUID(), connectedAt: generation });
  await applySync(t.core.db, {
    full: true,
    templates,
    removedIds: [],
    checkedAt: new Date().toISOString(),
    etag: null,
    generation: conn?.connectedAt ?? generation,
  });
}
