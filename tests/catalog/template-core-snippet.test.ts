/**
 * Issue 21: the template page's Core commands used https://core.example.com although the Hub knows the URLs the
 * organization's instances reported. They now use the member's own instances (active ones, this organization only).
 * Issue 37: the page links "Deploy on <instance>" to each one's deploy form, and says where $CORE_TOKEN comes from.
 */
import { eq } from 'drizzle-orm';
import { expect, it } from 'vitest';
import { getDb } from '../../server/db/client';
import { instanceKeys } from '../../server/db/schema';
import { codeTokens, coreCommands, deployHref, deployLinks } from '../../app/templates/[slug]/core-snippet';
import { orgInstanceUrls } from '../../server/domain/support/instances';
import { api, createKey, createOrg } from '../helpers';

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

it('links each instance to its deploy form for the template, http(s) only, under its own path', () => {
  expect(deployHref('https://core.acme.test/', 'postgresql')).toBe(
    'https://core.acme.test/deployments?template=postgresql',
  );
  // A Core served under a path prefix keeps it; a slug is encoded; a fragment of the report is dropped.
  expect(deployHref('http://127.0.0.1:4000/core//#x', 'a b&c')).toBe(
    'http://127.0.0.1:4000/core/deployments?template=a+b%26c',
  );
  for (const bad of ['javascript:alert(1)//', 'data:text/html,hi', 'ftp://core.test', 'not a url', ''])
    expect(deployHref(bad, 'postgresql'), bad).toBeNull();
  expect(
    deployLinks(
      [
        { name: 'core-lab', baseUrl: 'https://lab.acme.test' },
        { name: 'odd', baseUrl: 'javascript:alert(1)' },
        { name: 'core-prod', baseUrl: 'https://core.acme.test' },
      ],
      'redis',
    ),
  ).toEqual([
    { name: 'core-lab', href: 'https://lab.acme.test/deployments?template=redis' },
    { name: 'core-prod', href: 'https://core.acme.test/deployments?template=redis' },
  ]);
  expect(deployLinks([], 'redis')).toEqual([]);
});

it('says where $CORE_TOKEN comes from, in comments that stay short and never run on past a line', () => {
  const body = `'${JSON.stringify({ name: 'pg', template_slug: 'postgresql', env: {} })}'`;
  for (const instances of [[], [{ name: 'core-lab\nrm -rf /', baseUrl: 'https://lab.acme.test' }]]) {
    const commands = coreCommands({ deploymentBody: body, instances });
    const lines = commands.split('\n');
    expect(commands).toMatch(/CORE_TOKEN: a Core admin machine token \(svm_…\), from Core's Machine tokens/);
    expect(commands).toContain('npm run --silent core -- token create');
    expect(commands).toContain('--role admin');
    // Every comment line fits a phone-width code block without breaking a word; a name cannot start a command.
    for (const line of lines.filter((l) => l.startsWith('#'))) expect(line.length, line).toBeLessThanOrEqual(80);
    expect(lines.filter((l) => !l.startsWith('#') && !l.startsWith(' ')).map((l) => l.split(/[= ]/)[0])).toEqual([
      'C',
      'A',
      'curl',
      'curl',
    ]);
  }
});

it('keeps short hyphenated words of a command whole, and the text the same', () => {
  const code =
    '# or on the Core machine: npm run --silent core -- token create\n  -H \'content-type: application/json\' \\\n  -d \'{"name":"a-b"}\'';
  const tokens = codeTokens(code);
  expect(tokens.map((t) => t.text).join('')).toBe(code);
  const whole = tokens.filter((t) => t.whole).map((t) => t.text);
  expect(whole).toEqual(['--silent', '--', '-H', "'content-type:", '-d', '\'{"name":"a-b"}\'']);
  expect(tokens.find((t) => t.text.startsWith('http'))).toBeUndefined();
  const url = codeTokens('curl https://core.example.com/api/v1/catalog/templates/some-long-slug')[2]!;
  expect(url).toEqual({ text: 'https://core.example.com/api/v1/catalog/templates/some-long-slug', whole: false });
});
