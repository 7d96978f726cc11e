/** The OpenAPI document lists every account and admin operation with its request and response schemas. */
import { describe, expect, it } from 'vitest';
import { openApiDocument } from '../../server/api/openapi';

const OPERATIONS: [string, string[]][] = [
  ['/account/organizations', ['get', 'post']],
  ['/account/profile', ['get', 'put']],
  ['/account/api-keys', ['get', 'post', 'put', 'delete']],
  ['/account/members', ['get', 'put', 'delete']],
  ['/account/invitations', ['get', 'post', 'delete']],
  ['/account/invitations/received', ['get']],
  ['/account/invitations/accept', ['post']],
  ['/account/invitations/decline', ['post']],
  ['/account/leave', ['post']],
  ['/admin/templates', ['get', 'post', 'put', 'delete']],
  ['/admin/categories', ['get', 'post', 'put', 'delete']],
  ['/admin/catalog-access', ['get', 'post', 'delete']],
  ['/admin/users', ['get', 'put', 'delete']],
  ['/admin/organizations', ['get', 'put']],
  ['/admin/api-keys', ['get', 'delete']],
  ['/admin/stats', ['get']],
  ['/admin/audit-log', ['get']],
];

describe('OpenAPI document', () => {
  const doc = openApiDocument() as any;
  for (const [path, methods] of OPERATIONS) {
    for (const method of methods) {
      it(`${method.toUpperCase()} ${path}`, () => {
        const op = doc.paths[path]?.[method];
        expect(op, `${method} ${path} missing`).toBeTruthy();
        const ok = op.responses['200'].content['application/json'].schema;
        expect(ok.type).toBe('object');
        expect(Object.keys(ok.properties).length).toBeGreaterThan(0);
        // POST /account/leave acts on the caller alone: it takes no fields.
        if ((method === 'post' || method === 'put' || method === 'delete') && path !== '/account/leave') {
          const body = op.requestBody?.content?.['application/json']?.schema;
          expect(body, `${method} ${path} request body`).toBeTruthy();
          expect(Object.keys(body.properties).length).toBeGreaterThan(0);
        }
      });
    }
  }

  it('documents the template fields an admin may write, and the masked credentials in responses', () => {
    const post = doc.paths['/admin/templates'].post;
    const props = post.requestBody.content['application/json'].schema.properties;
    for (const f of [
      'registry_url',
      'registry_credentials',
      'secret_refs',
      'command',
      'tolerations',
      'icon_url',
      'org_id',
      'memory_request',
      'ports',
      'env',
    ]) {
      expect(props).toHaveProperty(f);
    }
    expect(props.is_public.type).toBe('boolean');
    expect(props.ports.items.properties.containerPort).toMatchObject({ type: 'integer', minimum: 1, maximum: 65535 });
    const out = post.responses['200'].content['application/json'].schema.properties.template.properties;
    expect(out).toHaveProperty('registry_credentials');
    expect(out).not.toHaveProperty('registry_credentials_enc');
  });

  it('documents the status and tier values', () => {
    const props = doc.paths['/admin/organizations'].put.requestBody.content['application/json'].schema.properties;
    expect(props.status.enum).toEqual(['active', 'suspended']);
    expect(props.tier.enum).toEqual(['free', 'pro', 'enterprise']);
  });
});
