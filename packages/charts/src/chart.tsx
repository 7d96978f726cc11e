/**
 * A chart of both frontends: a Recharts picture that is one image to assistive technology, named by a sentence
 * with its totals (summarize), and the same numbers as a table behind a disclosure, so nothing is only in the
 * picture. Each app wraps it in its own card or figure with the title, and passes its colours: the Hub CSS
 * variables, Core a palette it picks for the light or dark scheme.
 */
import {
  Bar,
  BarChart,
  CartesianGrid,
  Legend,
  Line,
  LineChart,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from 'recharts';
import { summarize, type SummaryInput } from './summary';
import { DataTable, type TableClasses } from './table';

export interface ChartSeries {
  key: string;
  label: string;
  color: string;
}

export interface ChartColors {
  axis: string;
  grid: string;
  /** The tooltip's background and text. */
  panel: string;
  text: string;
}

export interface ChartClasses {
  /** The picture's box; give it a height unless the height prop does. */
  picture?: string;
  details?: string;
  summary?: string;
  table?: TableClasses;
  /** The table's row headers (the category) and its cells. */
  rowHeader?: string;
  cell?: string;
  /** The table's rows. */
  row?: string;
  /** The table's figure columns (headers and cells). */
  figure?: string;
}

export interface ChartProps extends SummaryInput {
  series: readonly ChartSeries[];
  colors: ChartColors;
  /** The category column's header in the table: "Day (UTC)". */
  categoryLabel: string;
  /** The category as the table shows it (default formatCategory). */
  formatTableCategory?: (value: string) => string;
  kind?: 'bar' | 'line';
  /** columns (default): categories along the bottom; bars: categories down the side (bar charts). */
  layout?: 'columns' | 'bars';
  /** Pixels; default the picture box's height (classes.picture). */
  height?: number;
  gridDash?: string;
  /** The disclosure's words: "Show as table". */
  tableLabel: string;
  /** The table's caption (default the title). */
  tableCaption?: string;
  classes?: ChartClasses;
  testId?: string;
}

type Row = Record<string, unknown>;

export function Chart(props: ChartProps) {
  const c = props.colors;
  const cls = props.classes ?? {};
  const fmt = props.formatCategory ?? String;
  const tableFmt = props.formatTableCategory ?? fmt;
  const data = props.data as Row[];
  const bars = props.layout === 'bars';
  const Picture = props.kind === 'line' ? LineChart : BarChart;
  const tick = { fill: c.axis, fontSize: 12 };
  const caption = props.tableCaption ?? props.title;
  return (
    <>
      <div role="img" aria-label={summarize(props)} className={cls.picture} data-testid={props.testId}>
        <ResponsiveContainer
          width="100%"
          height={props.height ?? '100%'}
          initialDimension={{ width: 320, height: 192 }}
        >
          <Picture
            data={data}
            layout={bars ? 'vertical' : 'horizontal'}
            margin={{ top: 8, right: 8, bottom: 0, left: bars ? 8 : -16 }}
            accessibilityLayer={false}
          >
            <CartesianGrid stroke={c.grid} strokeDasharray={props.gridDash} vertical={false} horizontal={!bars} />
            {bars ? (
              <>
                <XAxis type="number" allowDecimals={false} stroke={c.axis} tick={tick} />
                <YAxis
                  type="category"
                  dataKey={props.category}
                  width={120}
                  stroke={c.axis}
                  tick={tick}
                  tickFormatter={fmt}
                />
              </>
            ) : (
              <>
                <XAxis
                  dataKey={props.category}
                  stroke={c.axis}
                  tick={tick}
                  tickFormatter={fmt}
                  interval="preserveStartEnd"
                  minTickGap={24}
                />
                <YAxis allowDecimals={false} stroke={c.axis} tick={tick} width={48} />
              </>
            )}
            <Tooltip
              labelFormatter={(v) => fmt(String(v))}
              contentStyle={{ background: c.panel, borderColor: c.grid, color: c.text, borderRadius: 8, fontSize: 12 }}
              labelStyle={{ color: c.text }}
              cursor={props.kind === 'line' ? { stroke: c.grid } : { fill: c.grid, opacity: 0.5 }}
            />
            {/* The legend in the series' order (Recharts sorts it by name unless told not to). */}
            {props.series.length > 1 ? (
              <Legend wrapperStyle={{ color: c.text, fontSize: 12 }} itemSorter={null} />
            ) : null}
            {props.series.map((s) =>
              props.kind === 'line' ? (
                <Line
                  key={s.key}
                  type="monotone"
                  dataKey={s.key}
                  name={s.label}
                  stroke={s.color}
                  strokeWidth={2}
                  dot={false}
                  isAnimationActive={false}
                />
              ) : (
                <Bar
                  key={s.key}
                  dataKey={s.key}
                  name={s.label}
                  fill={s.color}
                  stackId="all"
                  isAnimationActive={false}
                />
              ),
            )}
          </Picture>
        </ResponsiveContainer>
      </div>
      <details className={cls.details}>
        <summary className={cls.summary}>{props.tableLabel}</summary>
        <DataTable
          caption={caption}
          scroll
          classes={cls.table}
          columns={[props.categoryLabel, ...props.series.map((s) => ({ label: s.label, className: cls.figure }))]}
        >
          {data.map((row) => (
            <tr key={String(row[props.category])} className={cls.row}>
              <th scope="row" className={cls.rowHeader}>
                {tableFmt(String(row[props.category]))}
              </th>
              {props.series.map((s) => (
                <td key={s.key} className={[cls.cell, cls.figure].filter(Boolean).join(' ') || undefined}>
                  {Number(row[s.key] ?? 0)}
                </td>
              ))}
            </tr>
          ))}
        </DataTable>
      </details>
    </>
  );
}
