/**
 * Charts (Recharts, the library the Hub uses too): each is a figure whose picture is one labelled image
 * for screen readers (a sentence with the totals) followed by the same numbers as a table, so nothing is
 * only in the picture. Colours follow the light or dark scheme (SVG presentation attributes cannot read
 * CSS variables, so the palette is chosen here).
 */
import { useSyncExternalStore, type ReactNode } from 'react';
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';

const dark = window.matchMedia('(prefers-color-scheme: dark)');
export function useDarkMode() {
  return useSyncExternalStore(
    (cb) => {
      dark.addEventListener('change', cb);
      return () => dark.removeEventListener('change', cb);
    },
    () => dark.matches,
  );
}

/** Colours with at least 3:1 contrast on the panel background in each scheme. */
const PALETTE = {
  light: {
    ok: '#15803d',
    warn: '#b45309',
    bad: '#b91c1c',
    info: '#1d4ed8',
    axis: '#52525b',
    grid: '#e4e4e7',
    panel: '#ffffff',
    fg: '#18181b',
  },
  dark: {
    ok: '#4ade80',
    warn: '#fbbf24',
    bad: '#f87171',
    info: '#93c5fd',
    axis: '#a1a1aa',
    grid: '#3f3f46',
    panel: '#18181b',
    fg: '#f4f4f5',
  },
};
export type Tone = 'ok' | 'warn' | 'bad' | 'info';

export interface Series {
  key: string;
  label: string;
  tone: Tone;
}

/** "2026-11-26" → "26 Nov" (UTC: the rollups' days are UTC days). */
export const shortDay = (day: string) =>
  new Date(`${day}T00:00:00Z`).toLocaleDateString(undefined, { day: 'numeric', month: 'short', timeZone: 'UTC' });

type Row = Record<string, unknown>;

export function StackedBars(props: {
  title: string;
  summary: string;
  data: object[];
  category: string;
  categoryLabel: string;
  formatCategory?: (v: string) => string;
  series: Series[];
  layout?: 'days' | 'bars';
  empty?: ReactNode;
}) {
  const isDark = useDarkMode();
  const c = isDark ? PALETTE.dark : PALETTE.light;
  const fmt = props.formatCategory ?? ((v: string) => v);
  const horizontal = props.layout === 'bars';
  const data = props.data as Row[];
  const height = horizontal ? Math.max(120, props.data.length * 36 + 60) : 240;
  return (
    <figure className="chart">
      <figcaption>
        <h3>{props.title}</h3>
      </figcaption>
      {props.data.length === 0 && props.empty ? (
        <p className="muted">{props.empty}</p>
      ) : (
        <>
          <div role="img" aria-label={props.summary} className="chart-picture">
            <ResponsiveContainer width="100%" height={height}>
              <BarChart
                data={data}
                layout={horizontal ? 'vertical' : 'horizontal'}
                margin={{ top: 8, right: 8, bottom: 0, left: horizontal ? 8 : -16 }}
                accessibilityLayer={false}
              >
                <CartesianGrid stroke={c.grid} vertical={false} horizontal={!horizontal} />
                {horizontal ? (
                  <>
                    <XAxis type="number" allowDecimals={false} stroke={c.axis} tick={{ fill: c.axis, fontSize: 12 }} />
                    <YAxis
                      type="category"
                      dataKey={props.category}
                      width={120}
                      stroke={c.axis}
                      tick={{ fill: c.axis, fontSize: 12 }}
                      tickFormatter={fmt}
                    />
                  </>
                ) : (
                  <>
                    <XAxis
                      dataKey={props.category}
                      stroke={c.axis}
                      tick={{ fill: c.axis, fontSize: 12 }}
                      tickFormatter={fmt}
                      minTickGap={16}
                    />
                    <YAxis allowDecimals={false} stroke={c.axis} tick={{ fill: c.axis, fontSize: 12 }} />
                  </>
                )}
                <Tooltip
                  labelFormatter={(v) => fmt(String(v))}
                  contentStyle={{ background: c.panel, borderColor: c.grid, color: c.fg }}
                  cursor={{ fill: c.grid, opacity: 0.5 }}
                />
                <Legend wrapperStyle={{ color: c.fg, fontSize: 12 }} />
                {props.series.map((s) => (
                  <Bar
                    key={s.key}
                    dataKey={s.key}
                    name={s.label}
                    stackId="all"
                    fill={c[s.tone]}
                    isAnimationActive={false}
                  />
                ))}
              </BarChart>
            </ResponsiveContainer>
          </div>
          <details className="chart-table">
            <summary>The numbers as a table</summary>
            <div className="table-scroll" tabIndex={0} role="region" aria-label={props.title}>
              <table>
                <caption className="sr-only">{props.title}</caption>
                <thead>
                  <tr>
                    <th scope="col">{props.categoryLabel}</th>
                    {props.series.map((s) => (
                      <th key={s.key} scope="col">
                        {s.label}
                      </th>
                    ))}
                  </tr>
                </thead>
                <tbody>
                  {data.map((row) => (
                    <tr key={String(row[props.category])}>
                      <th scope="row">{fmt(String(row[props.category]))}</th>
                      {props.series.map((s) => (
                        <td key={s.key}>{Number(row[s.key] ?? 0)}</td>
                      ))}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </details>
        </>
      )}
    </figure>
  );
}
