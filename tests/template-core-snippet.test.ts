/**
 * Issue 21: the template page's Core commands used https://core.example.com although the Hub knows the URLs the
 * organization's instances reported. They now use the member's own instances (active ones, this organization only).
 */
import { eq } from 'drizzle-orm';
import { expect, it } from 'vitest';
import { getDb } from '../server/db/client';
import { instanceKeys } from '../server/db/schema';
import { coreCommands } from '../app/templates/[slug]/core-snippet';
import { orgInstanceUrls } from '../server/domain/support/instances';
import { api, createKey, createOrg } from './helpers';

it("uses the organization's reported instance URLs, never another organization's or a revoked key's", async () => {
  const org = await createOrg();
  const other = await createOrg();
  const prod = await createKey(org.id, 'core-prod');
  const lab = await createKey(org.id, 'core-lab');
  const gone = await createKey(org.id, 'core-gone');
  const foreign = await createKey(other.id, 'core-foreign');
  for (const [key, url] of [
    [prod, 'https://core.acme.test/'],
    [lab, 'https://lab.acme.test'],
    [gone, 'https://gone.acme.test'],
    [foreign, 'https://other.test'],
  ] as const) {
    expect((await api('/instance-info', { method: 'PUT', token: key.secret, body: { base_url: url } })).status).toBe(
      200,
    );
  }
  await api('/instance-info', { method: 'PUT', token: prod.secret, body: { version: '1.0' } }); // absent base_url keeps it
  await (await getDb()).update(instanceKeys).set({ status: 'revoked' }).where(eq(instanceKeys.id, gone.id));

  const instances = await orgInstanceUrls(org.id);
  expect(instances).toEqual([
    { name: 'core-lab', baseUrl: 'https://lab.acme.test' },
    { name: 'core-prod', baseUrl: 'https://core.acme.test/' },
  ]);
  const commands = coreCommands({ deploymentBody: "'{}'", instances });
  expect(commands).toContain('C=https://lab.acme.test/api/v1');
  expect(commands).toContain('# or core-prod: C=https://core.acme.test/api/v1');
  expect(commands).not.toContain('core.example.com');
  expect(commands).not.toContain('other.test');

  // Without a known instance, the placeholder; a URL with shell metacharacters is quoted.
  expect(coreCommands({ deploymentBody: "'{}'", instances: [] })).toContain('C=https://core.example.com/api/v1');
  expect(
    coreCommands({ deploymentBody: "'{}'", instances: [{ name: 'x', baseUrl: "https://h.test/a$(id)'b" }] }),
  ).toContain("C='https://h.test/a$(id)'\\''b/api/v1'");
});
