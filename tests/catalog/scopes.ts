/**
 * The four callers whose catalogs differ, made once per test file: anonymous, two organizations' instance keys and a
 * platform admin, plus `as` (a call as the admin that must answer 200). Used by the exact-count tests.
 */
import { beforeAll, expect } from 'vitest';
import { api, createKey, createOrg, createUser } from '../helpers';

export type Scope = { name: string; token: string | null; orgId: string | null; admin: boolean };

export function catalogScopes() {
  const callers = {} as {
    admin: Awaited<ReturnType<typeof createUser>>;
    orgA: { id: string };
    orgB: { id: string };
    keyA: string;
    keyB: string;
  };
  beforeAll(async () => {
    callers.admin = await createUser({ role: 'admin' });
    callers.orgA = await createOrg();
    callers.orgB = await createOrg();
    callers.keyA = (await createKey(callers.orgA.id)).secret;
    callers.keyB = (await createKey(callers.orgB.id)).secret;
  });
  const as = async (method: string, path: string, body?: unknown) => {
    const res = await api(path, { method, token: callers.admin.token, body });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body;
  };
  const scopes = (): Scope[] => [
    { name: 'anonymous', token: null, orgId: null, admin: false },
    { name: 'org A', token: callers.keyA, orgId: callers.orgA.id, admin: false },
    { name: 'org B', token: callers.keyB, orgId: callers.orgB.id, admin: false },
    { name: 'admin', token: callers.admin.token, orgId: null, admin: true },
  ];
  return { callers, as, scopes };
}
