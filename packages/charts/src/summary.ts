/**
 * The sentence that names a chart for screen readers (and anyone who reads it instead of the picture), computed
 * from the chart's own rows: "Template downloads, last 30 days: 1,204 in total, peak 96 on 11-21".
 */

export interface SummarySeries {
  key: string;
  label: string;
}

export interface SummaryInput {
  /** What is counted: "Template downloads". */
  title: string;
  /** The span the rows cover: "last 30 days". */
  period: string;
  data: readonly object[];
  /** The rows' category field: the day, or a kind of thing (a tool). */
  category: string;
  formatCategory?: (value: string) => string;
  series: readonly SummarySeries[];
  /**
   * count (default): the values add up (downloads a day) and the sentence gives the total. level: each row is a
   * state (instances active that day) that does not add up; the sentence gives the highest and the last.
   */
  measure?: 'count' | 'level';
  /**
   * time (default): ordered days, so the sentence names the peak day. kinds: unordered kinds of thing, each named
   * with its total, largest first.
   */
  categories?: 'time' | 'kinds';
}

// A fixed locale: the sentence is rendered on the server and again in the browser, and both must agree.
const numbers = new Intl.NumberFormat('en-US');
export const formatCount = (n: number) => numbers.format(n);

/** How many kinds the sentence names before it says "and N more". */
const MAX_KINDS = 8;

const value = (row: object, key: string) => Number((row as Record<string, unknown>)[key]) || 0;

/** Each series' total over the rows, in the series' order. */
export function seriesTotals(data: readonly object[], series: readonly SummarySeries[]) {
  return series.map((s) => ({ key: s.key, label: s.label, total: data.reduce((n, row) => n + value(row, s.key), 0) }));
}

/** Each row's category with the sum of all series in it (the height of a stacked bar). */
function rowTotals(input: SummaryInput) {
  const fmt = input.formatCategory ?? String;
  return input.data.map((row) => ({
    name: fmt(String((row as Record<string, unknown>)[input.category])),
    total: input.series.reduce((n, s) => n + value(row, s.key), 0),
  }));
}

export function summarize(input: SummaryInput): string {
  const head = `${input.title}, ${input.period}`;
  const rows = rowTotals(input);
  if (rows.length === 0) return `${head}: no data.`;
  // The first row with the highest value (the earliest day of a tie).
  const peak = rows.reduce((best, r) => (r.total > best.total ? r : best), rows[0]!);
  if (input.measure === 'level') {
    const last = rows.at(-1)!;
    return `${head}: at most ${formatCount(peak.total)} (on ${peak.name}), ${formatCount(last.total)} on the last day (${last.name}).`;
  }
  const total = rows.reduce((n, r) => n + r.total, 0);
  let text = `${head}: ${formatCount(total)} in total`;
  if (input.series.length > 1) {
    text += ` (${seriesTotals(input.data, input.series)
      .map((s) => `${s.label} ${formatCount(s.total)}`)
      .join(', ')})`;
  }
  if (total === 0) return `${text}.`;
  if (input.categories === 'kinds') {
    const named = rows.filter((r) => r.total > 0).sort((a, b) => b.total - a.total);
    const more = named.length > MAX_KINDS ? `, and ${named.length - MAX_KINDS} more` : '';
    return `${text}; ${named
      .slice(0, MAX_KINDS)
      .map((r) => `${r.name} ${formatCount(r.total)}`)
      .join(', ')}${more}.`;
  }
  return `${text}, peak ${formatCount(peak.total)} on ${peak.name}.`;
}
