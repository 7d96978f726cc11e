/** The audit log in words: the before/after read from what each audit writer stores (server/domain/*). */
import { describe, expect, it } from 'vitest';
import { actionWords, describeDetails } from '../../app/admin/audit/describe';

describe('audit details as before → after', () => {
  it('reads every shape the writers store', () => {
    expect(
      describeDetails(
        'member.update',
        { email: 'bob@example.test', role: { from: 'member', to: 'admin' } },
        'bob@example.test',
      ),
    ).toEqual({
      changes: [{ field: 'Organization role', from: 'member', to: 'admin' }],
      changedFields: [],
      facts: [],
    });
    expect(
      describeDetails(
        'organization.update',
        { changes: { status: { from: 'active', to: 'suspended' }, tier: { from: 'free', to: 'pro' } } },
        'Acme',
      ).changes,
    ).toEqual([
      { field: 'Status', from: 'active', to: 'suspended' },
      { field: 'Tier', from: 'free', to: 'pro' },
    ]);
    expect(
      describeDetails(
        'category.update',
        { slug: 'db', changes: { is_private: { from: false, to: true }, description: { from: '', to: 'SQL' } } },
        'Databases',
      ),
    ).toEqual({
      changes: [
        { field: 'Is private', from: 'no', to: 'yes' },
        { field: 'Description', from: '(none)', to: 'SQL' },
      ],
      changedFields: [],
      facts: [{ label: 'Slug', value: 'db' }],
    });
    expect(
      describeDetails('template.update', { slug: 'pg', changed: ['image_tag', 'env'] }, 'PostgreSQL').changedFields,
    ).toEqual(['Image tag', 'Env']);
    expect(
      describeDetails('support_ticket.status', { number: 7, from: 'open', to: 'closed' }, '#7 Disk full').changes,
    ).toEqual([{ field: 'Status', from: 'open', to: 'closed' }]);
    expect(
      describeDetails('user.role_change', { from: 'user', to: 'superadmin', reason: 'first user' }, 'Ada').changes,
    ).toEqual([{ field: 'Platform role', from: 'user', to: 'superadmin' }]);
  });

  it('leaves out ids, the target name already in the sentence, and the field list of a creation', () => {
    const grant = describeDetails(
      'access_grant.create',
      { category_id: '0b6c5a1e-1111-4222-8333-944455556666', category_slug: 'licensed' },
      'Acme → Licensed',
    );
    expect(grant.facts).toEqual([{ label: 'Category slug', value: 'licensed' }]);
    const created = describeDetails(
      'template.create',
      { slug: 'pg', name: 'PostgreSQL', fields: ['name', 'slug', 'image_name'] },
      'PostgreSQL',
    );
    expect(created).toEqual({ changes: [], changedFields: [], facts: [{ label: 'Slug', value: 'pg' }] });
  });

  it('words for every action, and a readable fallback for new ones', () => {
    expect(actionWords('api_key.revoke')).toBe('revoked instance key');
    expect(actionWords('widget.polish')).toBe('polish widget');
  });
});
