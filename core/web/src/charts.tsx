/**
 * Core's charts: the shared chart of both frontends (@shared/charts: one image named by a sentence with its
 * totals, then the same numbers as a table) in a figure with its title. Colours follow the light or dark scheme
 * (SVG presentation attributes here take plain colours, so the palette is chosen here, not in styles.css).
 */
import { Chart, type ChartProps } from '@shared/charts';
import { useSyncExternalStore, type ReactNode } from 'react';

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
    text: '#18181b',
  },
  dark: {
    ok: '#4ade80',
    warn: '#fbbf24',
    bad: '#f87171',
    info: '#93c5fd',
    axis: '#a1a1aa',
    grid: '#3f3f46',
    panel: '#18181b',
    text: '#f4f4f5',
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

export function StackedBars(
  props: Omit<ChartProps, 'series' | 'colors' | 'tableLabel' | 'kind' | 'height'> & {
    series: Series[];
    empty?: ReactNode;
  },
) {
  const c = useDarkMode() ? PALETTE.dark : PALETTE.light;
  const { series, empty, ...rest } = props;
  return (
    <figure className="chart">
      <figcaption>
        <h3>{props.title}</h3>
      </figcaption>
      {props.data.length === 0 && empty ? (
        <p className="muted">{empty}</p>
      ) : (
        <Chart
          {...rest}
          series={series.map((s) => ({ key: s.key, label: s.label, color: c[s.tone] }))}
          colors={c}
          height={props.layout === 'bars' ? Math.max(120, props.data.length * 36 + 60) : 240}
          tableLabel="The numbers as a table"
          classes={{ picture: 'chart-picture', details: 'chart-table', table: { region: 'table-scroll' } }}
        />
      )}
    </figure>
  );
}
