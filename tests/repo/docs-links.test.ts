/** Every link in the project's Markdown resolves inside the repository: the file exists, and so does the heading an anchor names. */
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const documents = ['README.md', 'CHANGELOG.md', 'core/README.md', 'bench/README.md', 'docs'].flatMap((entry) => {
  const full = path.join(root, entry);
  if (!fs.existsSync(full)) return [];
  if (fs.statSync(full).isFile()) return [full];
  return fs
    .readdirSync(full, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.md'))
    .map((f) => path.join(full, f));
});

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens. */
function anchors(markdown: string): Set<string> {
  const found = new Set<string>();
  for (const line of markdown.replace(/```[\s\S]*?```/g, '').split('\n')) {
    const heading = /^#{1,6}\s+(.*)$/.exec(line);
    if (!heading) continue;
    const text = (heading[1] ?? '').replace(/`/g, '').replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
    found.add(
      text
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\s_-]/gu, '')
        .replace(/\s/g, '-'),
    );
  }
  return found;
}

it('finds the documents', () => {
  expect(documents.map((d) => path.relative(root, d))).toEqual(expect.arrayContaining(['README.md', 'core/README.md']));
});

it('has no link that leaves the repository or points at nothing', () => {
  const broken: string[] = [];
  for (const doc of documents) {
    const text = fs.readFileSync(doc, 'utf8').replace(/```[\s\S]*?```/g, '');
    for (const match of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = match[1] ?? '';
      if (/^(https?:|mailto:)/.test(target)) continue;
      const [file = '', anchor] = target.split('#');
      const resolved = file ? path.resolve(path.dirname(doc), file) : doc;
      const where = `${path.relative(root, doc)} → ${target}`;
      if (!resolved.startsWith(root + path.sep)) broken.push(`${where} (outside the repository)`);
      else if (!fs.existsSync(resolved)) broken.push(`${where} (no such file)`);
      else if (anchor && resolved.endsWith('.md') && !anchors(fs.readFileSync(resolved, 'utf8')).has(anchor)) {
        broken.push(`${where} (no such heading)`);
      }
    }
  }
  expect(broken).toEqual([]);
});
