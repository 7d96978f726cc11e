/**
 * Test helpers: call the real REST adapter (the same function the Next route exports) with real
 * Requests, and create fixtures through the domain layer on the test file's own database.
 */
import { randomUUID } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { handleRest } from '../server/api/rest';
import { getDb } from '../server/db/client';
import { accessGrants, categories, organizations, subscriptions, templates, users } from '../server/db/schema';
import { catalogWrite } from '../server/domain/catalog/writes';
import { createInstanceKey } from '../server/domain/instanceKeys';
import { signUserToken } from '../server/domain/jwt';
import type { PlatformRole } from '../server/domain/principal';

export const BASE = 'http://hub.test';

export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export interface ApiOptions {
  method?: string;
  token?: string | null;
  body?: unknown;
  /** Sent as-is (for malformed JSON tests); implies no JSON encoding. */
  rawBody?: string;
  headers?: Record<string, string>;
}

/** A REST call through the real /api/v1 handler. `path` is relative to /api/v1. */
export async function api<T = any>(path: string, opts: ApiOptions = {}): Promise<ApiResponse<T>> {
  const headers = new Headers(opts.headers);
  if (opts.token) headers.set('authorization', `Bearer ${opts.token}`);
  let body: string | undefined = opts.rawBody;
  if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    if (!headers.has('content-type')) headers.set('content-type', 'application/json');
  }
  const res = await handleRest(new Request(`${BASE}/api/v1${path}`, { method: opts.method ?? 'GET', headers, body }));
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    /* not JSON: the assertion will show it */
  }
  return { status: res.status, body: parsed as T, headers: res.headers };
}

let counter = 0;
export const unique = (prefix: string) => `${prefix}-${process.pid}-${++counter}-${randomUUID().slice(0, 6)}`;

export async function createUser(opts: { email?: string; role?: PlatformRole; name?: string } = {}) {
  const db = await getDb();
  const [user] = await db
    .insert(users)
    .values({
      email: opts.email ?? `${unique('user')}@example.test`,
      name: opts.name ?? 'Test User',
      role: opts.role ?? 'user',
    })
    .returning();
  return { ...user!, token: await signUserToken(user!.id) };
}

/** An organization with `admin` (and optional members) as org members. */
export async function createOrg(
  opts: { name?: string; slug?: string; admin?: { id: string }; members?: { id: string }[] } = {},
) {
  const db = await getDb();
  const slug = opts.slug ?? unique('org');
  const [org] = await db
    .insert(organizations)
    .values({ name: opts.name ?? slug, slug })
    .returning();
  await db.insert(subscriptions).values({ orgId: org!.id, plan: 'free' });
  const join = async (userId: string, orgRole: 'admin' | 'member') =>
    db
      .update(users)
      .set({ orgId: org!.id, orgRole, orgJoinedAt: sql`now()` })
      .where(eq(users.id, userId));
  if (opts.admin) await join(opts.admin.id, 'admin');
  for (const m of opts.members ?? []) await join(m.id, 'member');
  return org!;
}

export async function createKey(orgId: string, name = 'test instance') {
  const db = await getDb();
  const { key, secret } = await createInstanceKey(db, { orgId, name });
  return { ...key, secret };
}

export async function createCategory(
  opts: { slug?: string; name?: string; isPrivate?: boolean; sortOrder?: number } = {},
) {
  return catalogWrite(async ({ tx, at }) => {
    const slug = opts.slug ?? unique('cat');
    const [row] = await tx
      .insert(categories)
      .values({
        slug,
        name: opts.name ?? slug,
        isPrivate: opts.isPrivate ?? false,
        sortOrder: opts.sortOrder ?? 0,
        description: `${slug} things`,
        icon: 'box',
        updatedAt: at,
      })
      .returning();
    return row!;
  });
}

export type TemplateInsert = Partial<typeof templates.$inferInsert> & { categoryId: string };

export async function createTemplate(opts: TemplateInsert) {
  return catalogWrite(async ({ tx, at }) => {
    const slug = opts.slug ?? unique('tpl');
    const [row] = await tx
      .insert(templates)
      .values({
        name: slug,
        description: `The ${slug} template`,
        imageName: `example/${slug}`,
        createdAt: at,
        updatedAt: at,
        ...opts,
        slug,
      })
      .returning();
    return row!;
  });
}

export async function grantAccess(orgId: string, categoryId: string) {
  const db = await getDb();
  const [row] = await db.insert(accessGrants).values({ orgId, categoryId }).returning();
  return row!;
}

/** Membership the way people get it: `admin` invites `user`'s email and `user` accepts (both through the REST API). */
export async function joinByInvitation(
  admin: { token: string },
  user: { email: string; token: string },
  role: 'admin' | 'member' = 'member',
) {
  const invited = await api('/account/invitations', {
    method: 'POST',
    token: admin.token,
    body: { email: user.email, role },
  });
  if (invited.status !== 200) throw new Error(`invite failed: ${invited.status} ${JSON.stringify(invited.body)}`);
  const accepted = await api('/account/invitations/accept', {
    method: 'POST',
    token: user.token,
    body: { id: invited.body.invitation.id },
  });
  if (accepted.status !== 200) throw new Error(`accept failed: ${accepted.status} ${JSON.stringify(accepted.body)}`);
  return { invitationId: invited.body.invitation.id as string, accepted };
}

/** The user principal of a user row (as the credential resolver would build it), for calling domain functions directly. */
export function principalOf(
  user: { id: string; email: string; name: string; role: PlatformRole },
  org?: { id: string; role: 'admin' | 'member' },
) {
  return {
    kind: 'user' as const,
    userId: user.id,
    email: user.email,
    name: user.name,
    role: user.role,
    orgId: org?.id ?? null,
    orgRole: org?.role ?? null,
  };
}
