/**
 * The shared chart and table, rendered as React renders them on the server: the picture is one image named by a
 * sentence with its totals, the same numbers are in a captioned table, and a list's table has its headers.
 */
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { Chart, DataTable, summarize, type ChartProps } from '../src/index.tsx';

const days = [
  { day: '2026-11-20', downloads: 400, active: 2 },
  { day: '2026-11-21', downloads: 96 * 7, active: 3 },
  { day: '2026-11-22', downloads: 132, active: 1 },
];
const mmdd = (d: string) => d.slice(5);

describe('summarize', () => {
  it('names the total and the peak day of counts', () => {
    const text = summarize({
      title: 'Template downloads',
      period: 'last 30 days',
      data: [
        { day: '2026-11-20', downloads: 500 },
        { day: '2026-11-21', downloads: 96 },
        { day: '2026-11-22', downloads: 608 },
      ],
      category: 'day',
      formatCategory: mmdd,
      series: [{ key: 'downloads', label: 'Downloads' }],
    });
    expect(text).toBe('Template downloads, last 30 days: 1,204 in total, peak 608 on 11-22.');
  });

  it('gives each series of a stacked chart and the peak of the stack; the earliest day wins a tie', () => {
    const text = summarize({
      title: 'Support tickets',
      period: 'last 30 days',
      data: [
        { day: '2026-11-20', opened: 2, closed: 1 },
        { day: '2026-11-21', opened: 0, closed: 3 },
      ],
      category: 'day',
      formatCategory: mmdd,
      series: [
        { key: 'opened', label: 'Opened' },
        { key: 'closed', label: 'Closed' },
      ],
    });
    expect(text).toBe('Support tickets, last 30 days: 6 in total (Opened 2, Closed 4), peak 3 on 11-20.');
  });

  it('says 0 without a peak, and "no data" without rows', () => {
    const base = { title: 'MCP calls', period: 'last 7 days', category: 'day', series: [{ key: 'n', label: 'n' }] };
    expect(summarize({ ...base, data: [{ day: 'a', n: 0 }] })).toBe('MCP calls, last 7 days: 0 in total.');
    expect(summarize({ ...base, data: [] })).toBe('MCP calls, last 7 days: no data.');
  });

  it('gives the highest and the last value of a level, not a sum', () => {
    const text = summarize({
      title: 'Active instances',
      period: 'last 30 days',
      data: days,
      category: 'day',
      formatCategory: mmdd,
      series: [{ key: 'active', label: 'Active instances' }],
      measure: 'level',
    });
    expect(text).toBe('Active instances, last 30 days: at most 3 (on 11-21), 1 on the last day (11-22).');
  });

  it('names kinds largest first, at most eight', () => {
    const tools = Array.from({ length: 10 }, (_, i) => ({ tool: `tool_${i}`, ok: i, error: i === 9 ? 1 : 0 }));
    const text = summarize({
      title: 'MCP tool calls by tool',
      period: 'last 30 days',
      data: tools,
      category: 'tool',
      categories: 'kinds',
      series: [
        { key: 'ok', label: 'OK' },
        { key: 'error', label: 'Failed' },
      ],
    });
    expect(text).toBe(
      'MCP tool calls by tool, last 30 days: 46 in total (OK 45, Failed 1); tool_9 10, tool_8 8, tool_7 7, tool_6 6, ' +
        'tool_5 5, tool_4 4, tool_3 3, tool_2 2, and 1 more.',
    );
  });
});

describe('Chart', () => {
  const props: ChartProps = {
    title: 'Template downloads',
    period: 'last 30 days',
    data: days,
    category: 'day',
    categoryLabel: 'Day (UTC)',
    formatCategory: mmdd,
    series: [{ key: 'downloads', label: 'Downloads', color: 'var(--chart-1)' }],
    colors: { axis: '#555', grid: '#ddd', panel: '#fff', text: '#111' },
    tableLabel: 'Show as table',
    tableCaption: 'Template downloads, by day',
    classes: { picture: 'h-48', figure: 'num' },
    testId: 'chart-downloads',
  };
  const html = renderToStaticMarkup(createElement(Chart, props));

  it('is one image named by its summary', () => {
    expect(html).toContain(
      '<div role="img" aria-label="Template downloads, last 30 days: 1,204 in total, peak 672 on 11-21." class="h-48"',
    );
  });

  it('has the same numbers as a captioned table in a focusable region', () => {
    expect(html).toContain('<summary>Show as table</summary>');
    expect(html).toContain('role="region" aria-label="Template downloads, by day"');
    expect(html).toContain('<caption class="sr-only">Template downloads, by day</caption>');
    expect(html).toContain('<th scope="col">Day (UTC)</th><th scope="col" class="num">Downloads</th>');
    expect(html).toContain('<th scope="row">11-21</th><td class="num">672</td>');
  });
});

describe('DataTable', () => {
  it('has a caption, column headers (hidden ones for screen readers only) and the rows', () => {
    const html = renderToStaticMarkup(
      createElement(
        DataTable,
        { caption: 'Users', columns: ['Name', { label: 'Actions', hidden: true }], classes: { table: 'list' } },
        createElement('tr', null, createElement('td', null, 'Ada'), createElement('td', null)),
      ),
    );
    expect(html).toBe(
      '<table class="list"><caption class="sr-only">Users</caption><thead><tr><th scope="col">Name</th>' +
        '<th scope="col"><span class="sr-only">Actions</span></th></tr></thead>' +
        '<tbody><tr><td>Ada</td><td></td></tr></tbody></table>',
    );
  });

  it('scrolls in a region named by the caption, and can show its caption', () => {
    const html = renderToStaticMarkup(
      createElement(DataTable, { caption: 'Tokens', captionVisible: true, columns: ['Token'], scroll: true }, null),
    );
    expect(html).toContain('<div tabindex="0" role="region" aria-label="Tokens"><table><caption>Tokens</caption>');
  });
});
