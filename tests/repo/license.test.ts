/** The project is licensed under Apache-2.0 (issue 38): the LICENSE file, and every package.json says so. */
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

it('has the Apache-2.0 text in LICENSE and "license": "Apache-2.0" in every package.json of the workspace', () => {
  const text = fs.readFileSync(path.join(ROOT, 'LICENSE'), 'utf8');
  expect(text).toContain('Apache License\n                           Version 2.0, January 2004');
  expect(text).toContain('END OF TERMS AND CONDITIONS');
  const root = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  const manifests = ['package.json', ...(root.workspaces as string[])].flatMap((w) =>
    w === 'package.json'
      ? [w]
      : w.endsWith('/*')
        ? fs
            .readdirSync(path.join(ROOT, w.slice(0, -2)))
            .map((d) => path.join(w.slice(0, -2), d, 'package.json'))
            .filter((f) => fs.existsSync(path.join(ROOT, f)))
        : [path.join(w, 'package.json')],
  );
  expect(manifests.length).toBeGreaterThan(5);
  for (const f of manifests)
    expect(JSON.parse(fs.readFileSync(path.join(ROOT, f), 'utf8')).license, f).toBe('Apache-2.0');
});
