/**
 * Membership needs the person's consent: an organization admin invites an email, the signed-in user with
 * that verified email accepts or declines. Inviting answers the same for any address (no account
 * enumeration); invitations expire, are single-use, revocable and scoped to their organization; members
 * can leave, except the last admin.
 */
import { and, eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { getDb } from '../../server/db/client';
import { orgInvitations, organizations, users } from '../../server/db/schema';
import { api, createOrg, createUser, joinByInvitation, unique } from '../helpers';
import { auditRows } from '../account-admin-fixtures';

async function orgWithAdmin(name = 'Acme') {
  const admin = await createUser({ name: `${name} Admin` });
  const org = await createOrg({ admin, name });
  return { admin, org };
}

async function invite(admin: { token: string }, email: string, role: 'admin' | 'member' = 'member') {
  const res = await api('/account/invitations', { method: 'POST', token: admin.token, body: { email, role } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.invitation as {
    id: string;
    email: string;
    role: string;
    status: string;
    expires_at: string;
    created_at: string;
  };
}

const accept = (user: { token: string }, id: string) =>
  api('/account/invitations/accept', { method: 'POST', token: user.token, body: { id } });
const decline = (user: { token: string }, id: string) =>
  api('/account/invitations/decline', { method: 'POST', token: user.token, body: { id } });
const received = async (user: { token: string }) => {
  const res = await api('/account/invitations/received', { token: user.token });
  expect(res.status).toBe(200);
  return res.body.invitations as {
    id: string;
    role: string;
    organization: { id: string; name: string };
    invited_by: { name: string; email: string } | null;
  }[];
};
const pendingOf = async (admin: { token: string }) => {
  const res = await api('/account/invitations', { token: admin.token });
  expect(res.status).toBe(200);
  return res.body.invitations as { id: string; email: string }[];
};
const membership = async (userId: string) => {
  const [u] = await (
    await getDb()
  )
    .select({ orgId: users.orgId, orgRole: users.orgRole })
    .from(users)
    .where(eq(users.id, userId));
  return u;
};

describe('inviting', () => {
  it('answers the same for an unknown address, a user without organization and a user of another organization', async () => {
    const { admin, org } = await orgWithAdmin();
    const free = await createUser();
    const busy = await createUser();
    await createOrg({ admin: busy });
    const unknown = `${unique('nobody')}@example.test`;
    const db = await getDb();
    const usersBefore = (await db.select({ id: users.id }).from(users)).length;

    const answers: Awaited<ReturnType<typeof api<any>>>[] = [];
    for (const email of [unknown, free.email, busy.email]) {
      const res = await api('/account/invitations', {
        method: 'POST',
        token: admin.token,
        body: { email, role: 'member' },
      });
      answers.push(res);
    }
    const shape = (r: (typeof answers)[number]) => ({
      status: r.status,
      headers: [...r.headers.keys()].sort(),
      body: {
        ...r.body,
        invitation: { ...r.body.invitation, id: 'ID', email: 'EMAIL', created_at: 'T', expires_at: 'T' },
      },
    });
    expect(shape(answers[1]!)).toEqual(shape(answers[0]!));
    expect(shape(answers[2]!)).toEqual(shape(answers[0]!));
    expect(answers[0]!.body.invitation).toEqual({
      id: expect.any(String),
      email: unknown,
      role: 'member',
      status: 'pending',
      created_at: expect.any(String),
      expires_at: expect.any(String),
      invited_by: { user_id: admin.id, name: admin.name, email: admin.email },
    });
    // Seven days to answer.
    const inv = answers[0]!.body.invitation;
    expect(Date.parse(inv.expires_at) - Date.parse(inv.created_at)).toBe(7 * 24 * 3600 * 1000);
    // Nobody was added and no account was created for the unknown address.
    expect(await membership(free.id)).toEqual({ orgId: null, orgRole: null });
    expect((await db.select({ id: users.id }).from(users)).length).toBe(usersBefore);
    expect((await pendingOf(admin)).map((i) => i.email).sort()).toEqual([unknown, free.email, busy.email].sort());
    // Stored: only the invitation's own facts.
    const [row] = await db.select().from(orgInvitations).where(eq(orgInvitations.id, inv.id));
    expect(Object.keys(row!).sort()).toEqual([
      'createdAt',
      'email',
      'expiresAt',
      'id',
      'invitedBy',
      'orgId',
      'respondedAt',
      'role',
      'status',
    ]);
    expect(row).toMatchObject({
      orgId: org.id,
      email: unknown,
      role: 'member',
      invitedBy: admin.id,
      status: 'pending',
    });
  });

  it('emails are matched case-insensitively; an address of a current member is refused (409)', async () => {
    const { admin } = await orgWithAdmin();
    const bob = await createUser({ email: `${unique('bob')}@example.test` });
    const inv = await invite(admin, `  ${bob.email.toUpperCase()} `);
    expect(inv.email).toBe(bob.email);
    expect((await received(bob)).map((i) => i.id)).toEqual([inv.id]);
    expect((await accept(bob, inv.id)).status).toBe(200);
    const again = await api('/account/invitations', {
      method: 'POST',
      token: admin.token,
      body: { email: bob.email, role: 'admin' },
    });
    expect(again.status).toBe(409);
    expect(again.body.message).toMatch(/already a member/);
  });

  it('inviting again replaces the pending invitation: the old id can no longer be accepted', async () => {
    const { admin } = await orgWithAdmin();
    const bob = await createUser();
    const first = await invite(admin, bob.email, 'member');
    const second = await invite(admin, bob.email, 'admin');
    expect(second.id).not.toBe(first.id);
    expect((await pendingOf(admin)).map((i) => i.id)).toEqual([second.id]);
    expect((await received(bob)).map((i) => [i.id, i.role])).toEqual([[second.id, 'admin']]);
    expect((await accept(bob, first.id)).status).toBe(409);
    expect((await accept(bob, second.id)).status).toBe(200);
    expect(await membership(bob.id)).toMatchObject({ orgRole: 'admin' });
  });

  it('bad input is a 400 naming the field', async () => {
    const { admin } = await orgWithAdmin();
    for (const body of [
      { email: 'not-an-email', role: 'member' },
      { email: 'a@example.test', role: 'owner' },
      { email: 'a@example.test' },
    ]) {
      const res = await api('/account/invitations', { method: 'POST', token: admin.token, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.message).toMatch(/email|role/);
    }
    expect(
      (await api('/account/invitations/accept', { method: 'POST', token: admin.token, body: { id: 'nope' } })).status,
    ).toBe(400);
  });
});

describe('answering', () => {
  it('the invitee sees the invitation and accepts: joins with the invited role, once', async () => {
    const { admin, org } = await orgWithAdmin('Acme');
    const bob = await createUser({ name: 'Bob' });
    const inv = await invite(admin, bob.email, 'admin');
    const mine = await received(bob);
    expect(mine).toEqual([
      {
        id: inv.id,
        role: 'admin',
        created_at: inv.created_at,
        expires_at: inv.expires_at,
        organization: { id: org.id, name: 'Acme', slug: org.slug },
        invited_by: { name: admin.name, email: admin.email },
      },
    ]);
    // Not visible to anyone else.
    expect(await received(await createUser())).toEqual([]);
    expect(await received(admin)).toEqual([]);

    const res = await accept(bob, inv.id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ organization: { id: org.id, name: 'Acme', role: 'admin' } });
    expect(await membership(bob.id)).toEqual({ orgId: org.id, orgRole: 'admin' });
    const members = (await api('/account/members', { token: admin.token })).body.members;
    expect(members).toContainEqual(expect.objectContaining({ user_id: bob.id, role: 'admin' }));
    // Bob acts as an org admin at once (the role is read on every call).
    expect((await api('/account/api-keys', { method: 'POST', token: bob.token, body: { name: 'k' } })).status).toBe(
      200,
    );

    // Single use: gone from both lists and refused a second time.
    expect(await received(bob)).toEqual([]);
    expect(await pendingOf(admin)).toEqual([]);
    const twice = await accept(bob, inv.id);
    expect(twice.status).toBe(409);
    expect(twice.body.message).toMatch(/already accepted/);
    expect((await decline(bob, inv.id)).status).toBe(409);
    // Leaving does not make it usable again.
    await joinByInvitation(admin, await createUser(), 'admin');
    expect((await api('/account/leave', { method: 'POST', token: bob.token, body: {} })).status).toBe(200);
    expect((await accept(bob, inv.id)).status).toBe(409);
    expect(await membership(bob.id)).toEqual({ orgId: null, orgRole: null });

    const audit = (await auditRows())
      .filter((r) => r.targetId === bob.id || r.targetId === inv.id)
      .map((r) => r.action);
    expect(audit).toEqual(['invitation.create', 'member.add', 'member.leave']);
    const add = (await auditRows()).find((r) => r.action === 'member.add' && r.targetId === bob.id)!;
    expect(add).toMatchObject({
      actorId: bob.id,
      orgId: org.id,
      details: { email: bob.email, role: 'admin', invitation_id: inv.id },
    });
  });

  it('declining: no membership, the invitation is used up', async () => {
    const { admin } = await orgWithAdmin();
    const bob = await createUser();
    const inv = await invite(admin, bob.email);
    const res = await decline(bob, inv.id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ invitation: { id: inv.id, status: 'declined' } });
    expect(await membership(bob.id)).toEqual({ orgId: null, orgRole: null });
    expect(await received(bob)).toEqual([]);
    expect(await pendingOf(admin)).toEqual([]);
    expect((await accept(bob, inv.id)).status).toBe(409);
    expect(await membership(bob.id)).toEqual({ orgId: null, orgRole: null });
    expect(
      (await auditRows()).some(
        (r) => r.action === 'invitation.decline' && r.targetId === inv.id && r.actorId === bob.id,
      ),
    ).toBe(true);
  });

  it('another user cannot accept or decline it: 404, and nothing changes', async () => {
    const { admin } = await orgWithAdmin();
    const bob = await createUser();
    const mallory = await createUser();
    const inv = await invite(admin, bob.email);
    for (const res of [await accept(mallory, inv.id), await decline(mallory, inv.id), await accept(admin, inv.id)]) {
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ code: 'NOT_FOUND', message: expect.any(String) });
    }
    // The same 404 as an id that does not exist.
    const none = await accept(mallory, crypto.randomUUID());
    expect(none.status).toBe(404);
    expect(none.body.message).toBe((await accept(mallory, inv.id)).body.message);
    expect(await membership(mallory.id)).toEqual({ orgId: null, orgRole: null });
    expect((await pendingOf(admin)).map((i) => i.id)).toEqual([inv.id]);
    expect((await accept(bob, inv.id)).status).toBe(200);
  });

  it('expired invitations are not listed and cannot be accepted or declined', async () => {
    const { admin } = await orgWithAdmin();
    const bob = await createUser();
    const inv = await invite(admin, bob.email);
    const db = await getDb();
    await db
      .update(orgInvitations)
      .set({ expiresAt: sql`now() - interval '1 second'` })
      .where(eq(orgInvitations.id, inv.id));
    expect(await received(bob)).toEqual([]);
    expect(await pendingOf(admin)).toEqual([]);
    const res = await accept(bob, inv.id);
    expect(res.status).toBe(409);
    expect(res.body.message).toMatch(/expired/);
    expect((await decline(bob, inv.id)).status).toBe(409);
    expect(await membership(bob.id)).toEqual({ orgId: null, orgRole: null });
    // A fresh invitation works.
    const fresh = await invite(admin, bob.email);
    expect((await accept(bob, fresh.id)).status).toBe(200);
  });

  it('a user who already belongs to an organization gets a 409 telling them to leave it first; afterwards it works', async () => {
    const a = await orgWithAdmin('A');
    const b = await orgWithAdmin('B');
    const bob = await createUser();
    await joinByInvitation(a.admin, bob);
    const inv = await invite(b.admin, bob.email);
    const res = await accept(bob, inv.id);
    expect(res.status).toBe(409);
    expect(res.body.message).toMatch(/leave it first/);
    expect(await membership(bob.id)).toEqual({ orgId: a.org.id, orgRole: 'member' });
    expect((await received(bob)).map((i) => i.id)).toEqual([inv.id]); // still pending
    expect((await api('/account/leave', { method: 'POST', token: bob.token, body: {} })).status).toBe(200);
    expect((await accept(bob, inv.id)).status).toBe(200);
    expect(await membership(bob.id)).toEqual({ orgId: b.org.id, orgRole: 'member' });
  });

  it('two invitations accepted at once: the user ends up in exactly one organization', async () => {
    const a = await orgWithAdmin('A');
    const b = await orgWithAdmin('B');
    const bob = await createUser();
    const [ia, ib] = [await invite(a.admin, bob.email), await invite(b.admin, bob.email)];
    const results = await Promise.all([accept(bob, ia.id), accept(bob, ib.id)]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    const joined = results[0]!.status === 200 ? a.org.id : b.org.id;
    expect((await membership(bob.id))!.orgId).toBe(joined);
  });

  it("a suspended organization's invitations are not offered and cannot be accepted", async () => {
    const { admin, org } = await orgWithAdmin();
    const bob = await createUser();
    const inv = await invite(admin, bob.email);
    await (await getDb()).update(organizations).set({ status: 'suspended' }).where(eq(organizations.id, org.id));
    expect(await received(bob)).toEqual([]);
    expect((await accept(bob, inv.id)).status).toBe(409);
    expect(await membership(bob.id)).toEqual({ orgId: null, orgRole: null });
  });
});

describe('revoking and tenant isolation', () => {
  it('an org admin revokes a pending invitation; revoking again is a no-op; answered ones cannot be revoked', async () => {
    const { admin, org } = await orgWithAdmin();
    const bob = await createUser();
    const inv = await invite(admin, bob.email);
    const res = await api('/account/invitations', { method: 'DELETE', token: admin.token, body: { id: inv.id } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ invitation: { id: inv.id, status: 'revoked' } });
    expect(await pendingOf(admin)).toEqual([]);
    expect(await received(bob)).toEqual([]);
    expect((await accept(bob, inv.id)).status).toBe(409);
    expect(await membership(bob.id)).toEqual({ orgId: null, orgRole: null });
    expect((await api(`/account/invitations?id=${inv.id}`, { method: 'DELETE', token: admin.token })).status).toBe(200);
    const revokes = (await auditRows()).filter((r) => r.action === 'invitation.revoke' && r.targetId === inv.id);
    expect(revokes).toHaveLength(1);
    expect(revokes[0]).toMatchObject({ actorId: admin.id, orgId: org.id });

    const carol = await createUser();
    const accepted = await invite(admin, carol.email);
    expect((await accept(carol, accepted.id)).status).toBe(200);
    const late = await api('/account/invitations', { method: 'DELETE', token: admin.token, body: { id: accepted.id } });
    expect(late.status).toBe(409);
    expect(await membership(carol.id)).toMatchObject({ orgId: org.id });
  });

  it("another organization's invitation ids are 404 for its admins and its invitations are not listed", async () => {
    const a = await orgWithAdmin('A');
    const b = await orgWithAdmin('B');
    const inv = await invite(a.admin, `${unique('x')}@example.test`);
    const res = await api('/account/invitations', { method: 'DELETE', token: b.admin.token, body: { id: inv.id } });
    expect(res.status).toBe(404);
    expect(res.body.message).toBe(
      (await api('/account/invitations', { method: 'DELETE', token: b.admin.token, body: { id: crypto.randomUUID() } }))
        .body.message,
    );
    expect(await pendingOf(b.admin)).toEqual([]);
    expect((await pendingOf(a.admin)).map((i) => i.id)).toEqual([inv.id]);
    const [row] = await (
      await getDb()
    )
      .select({ status: orgInvitations.status })
      .from(orgInvitations)
      .where(eq(orgInvitations.id, inv.id));
    expect(row!.status).toBe('pending');
  });

  it('members who are not admins can neither list, create nor revoke invitations (403)', async () => {
    const { admin } = await orgWithAdmin();
    const member = await createUser();
    await joinByInvitation(admin, member);
    const inv = await invite(admin, `${unique('x')}@example.test`);
    expect((await api('/account/invitations', { token: member.token })).status).toBe(403);
    expect(
      (
        await api('/account/invitations', {
          method: 'POST',
          token: member.token,
          body: { email: 'y@example.test', role: 'member' },
        })
      ).status,
    ).toBe(403);
    expect(
      (await api('/account/invitations', { method: 'DELETE', token: member.token, body: { id: inv.id } })).status,
    ).toBe(403);
  });
});

describe('leaving', () => {
  it('a member leaves: membership ends at once and is audited', async () => {
    const { admin, org } = await orgWithAdmin();
    const bob = await createUser();
    await joinByInvitation(admin, bob);
    expect((await api('/account/api-keys', { token: bob.token })).status).toBe(200);
    const res = await api('/account/leave', { method: 'POST', token: bob.token, body: {} });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ left: { organization_id: org.id } });
    const db = await getDb();
    const [u] = await db.select().from(users).where(eq(users.id, bob.id));
    expect(u).toMatchObject({ orgId: null, orgRole: null, orgJoinedAt: null });
    expect((await api('/account/api-keys', { token: bob.token })).status).toBe(403);
    expect(
      (await api('/account/members', { token: admin.token })).body.members.map((m: { user_id: string }) => m.user_id),
    ).toEqual([admin.id]);
    const rows = (await auditRows()).filter((r) => r.action === 'member.leave' && r.targetId === bob.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ actorId: bob.id, orgId: org.id, details: { email: bob.email, role: 'member' } });
    // Without an organization there is nothing to leave.
    const again = await api('/account/leave', { method: 'POST', token: bob.token, body: {} });
    expect(again.status).toBe(409);
  });

  it('the last admin cannot leave (409); once another member is admin, they can', async () => {
    const { admin, org } = await orgWithAdmin();
    const bob = await createUser();
    await joinByInvitation(admin, bob);
    const refused = await api('/account/leave', { method: 'POST', token: admin.token, body: {} });
    expect(refused.status).toBe(409);
    expect(refused.body.message).toMatch(/last admin/);
    expect(await membership(admin.id)).toEqual({ orgId: org.id, orgRole: 'admin' });
    expect(
      (await api('/account/members', { method: 'PUT', token: admin.token, body: { user_id: bob.id, role: 'admin' } }))
        .status,
    ).toBe(200);
    expect((await api('/account/leave', { method: 'POST', token: admin.token, body: {} })).status).toBe(200);
    expect(await membership(admin.id)).toEqual({ orgId: null, orgRole: null });
    // Bob is now the last admin.
    expect((await api('/account/leave', { method: 'POST', token: bob.token, body: {} })).status).toBe(409);
    const admins = await (
      await getDb()
    )
      .select()
      .from(users)
      .where(and(eq(users.orgId, org.id), eq(users.orgRole, 'admin')));
    expect(admins.map((u) => u.id)).toEqual([bob.id]);
  });

  it('two admins leaving at once: one of them stays', async () => {
    const { admin, org } = await orgWithAdmin();
    const bob = await createUser();
    await joinByInvitation(admin, bob, 'admin');
    const results = await Promise.all(
      [admin, bob].map((u) => api('/account/leave', { method: 'POST', token: u.token, body: {} })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    const admins = await (
      await getDb()
    )
      .select()
      .from(users)
      .where(and(eq(users.orgId, org.id), eq(users.orgRole, 'admin')));
    expect(admins).toHaveLength(1);
  });
});
