/**
 * The one Markdown renderer of both services (Hub template page, Core's /catalog/<slug>), rendered as React
 * renders it on the server: Markdown becomes headings, tables and code; what documentation must never
 * carry (raw HTML, scripts, event handlers, javascript: links) does not reach the page.
 */
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { Markdown, type MarkdownProps } from '../src/index.tsx';

const render = (props: MarkdownProps) => renderToStaticMarkup(createElement(Markdown, props));

describe('Markdown', () => {
  it('renders headings, GitHub tables, lists and code', () => {
    const html = render({
      source: [
        '# PostgreSQL',
        '',
        'A **relational** database. Run `psql`.',
        '',
        '| Variable | Meaning |',
        '| --- | --- |',
        '| `POSTGRES_PASSWORD` | the superuser password |',
        '',
        '- one',
        '- two',
        '',
        '```sh',
        'psql -h localhost',
        '```',
      ].join('\n'),
    });
    expect(html).toMatch(/^<div class="markdown">/);
    expect(html).toContain('<h1>PostgreSQL</h1>');
    expect(html).toContain('<strong>relational</strong>');
    expect(html).toContain('<code>psql</code>');
    expect(html).toContain('<table>');
    expect(html).toContain('<th>Variable</th>');
    expect(html).toContain('<td><code>POSTGRES_PASSWORD</code></td>');
    expect(html).toContain('<li>two</li>');
    expect(html).toMatch(/<pre><code class="language-sh">psql -h localhost\n<\/code><\/pre>/);
    expect(html).not.toContain('| ---');
    expect(html).not.toContain('# PostgreSQL');
  });

  it('moves headings down to the level it is given, stopping at h6', () => {
    const html = render({ source: '# One\n\n## Two\n\n#### Four\n\n###### Six', headingLevel: 3 });
    expect(html).toContain('<h3>One</h3>');
    expect(html).toContain('<h4>Two</h4>');
    expect(html).toContain('<h6>Four</h6>');
    expect(html).toContain('<h6>Six</h6>');
    expect(html).not.toMatch(/<h[12]/);
  });

  it('never renders raw HTML: scripts, handlers, iframes and styles are dropped, the Markdown around them stays', () => {
    const html = render({
      source: [
        'Before',
        '',
        '<script>alert(1)</script>',
        '',
        'Inline <img src="x" onerror="alert(2)"> and <b onclick="alert(3)">bold</b>.',
        '',
        '<iframe src="https://evil.test"></iframe>',
        '',
        '<div style="position:fixed">overlay</div>',
      ].join('\n'),
    });
    expect(html).not.toMatch(/<script|<img|<iframe|<b[ >]|<div style/i);
    expect(html).not.toMatch(/\sonerror=|\sonclick=|\sstyle=/i);
    expect(html).not.toContain('alert(1)');
    expect(html).not.toContain('overlay');
    expect(html).toContain('<p>Before</p>');
    expect(html).toContain('<p>Inline  and bold.</p>');
  });

  it('drops javascript: and data: links and images; links get rel="noopener noreferrer"', () => {
    const html = render({
      source: [
        '[docs](https://www.postgresql.org/docs/) and [local](/catalog/redis)',
        '',
        '[click](javascript:alert(1)) [data](data:text/html;base64,PHNjcmlwdD4=)',
        '',
        '![pixel](javascript:alert(2))',
        '',
        'Autolink: https://example.org/x',
      ].join('\n'),
    });
    expect(html).toContain('<a href="https://www.postgresql.org/docs/" rel="noopener noreferrer">docs</a>');
    expect(html).toContain('<a href="/catalog/redis" rel="noopener noreferrer">local</a>');
    expect(html).toContain('<a href="https://example.org/x" rel="noopener noreferrer">https://example.org/x</a>');
    expect(html).not.toMatch(/javascript:|data:text/i);
    for (const anchor of html.match(/<a [^>]*>/g) ?? []) expect(anchor).toContain('rel="noopener noreferrer"');
    expect(html.match(/<a [^>]*>/g)?.length).toBeGreaterThanOrEqual(3);
  });

  it("prefixes ids so a document cannot take over the page's own element ids", () => {
    const html = render({ source: 'See [^1].\n\n[^1]: A footnote.' });
    expect(html).toMatch(/id="user-content-/);
    expect(html).not.toMatch(/id="(?!user-content-)/);
  });
});
