/**
 * A table with its caption and column headers, the one both frontends use for their lists and for a chart's
 * numbers. Each app styles it through class names (the Hub's Tailwind utilities, Core's styles.css), so the
 * markup, and with it what a screen reader hears, is the same in both.
 */
import type { ReactNode } from 'react';

export interface Column {
  label: string;
  /** Read by screen readers, not shown (a column of buttons). */
  hidden?: boolean;
  /** Classes of this column's header besides classes.th (e.g. right-aligned figures). */
  className?: string;
}

export interface TableClasses {
  region?: string;
  table?: string;
  caption?: string;
  thead?: string;
  th?: string;
  tbody?: string;
}

export interface DataTableProps {
  /** Names the table (and its scroll region); hidden from sight unless captionVisible. */
  caption: string;
  captionVisible?: boolean;
  columns: readonly (string | Column)[];
  /** The body's rows. */
  children?: ReactNode;
  /**
   * Wrap the table in a focusable region named by the caption (or regionLabel), so keyboard users can scroll a
   * table that is wider or taller than its box.
   */
  scroll?: boolean;
  regionLabel?: string;
  classes?: TableClasses;
  testId?: string;
}

const join = (...names: (string | undefined)[]) => names.filter(Boolean).join(' ') || undefined;

export function DataTable(props: DataTableProps) {
  const c = props.classes ?? {};
  const table = (
    <table className={c.table} data-testid={props.testId}>
      <caption className={c.caption ?? (props.captionVisible ? undefined : 'sr-only')}>{props.caption}</caption>
      <thead className={c.thead}>
        <tr>
          {props.columns.map((col) => {
            const { label, hidden, className } = typeof col === 'string' ? { label: col } : col;
            return (
              <th key={label} scope="col" className={join(c.th, className)}>
                {hidden ? <span className="sr-only">{label}</span> : label}
              </th>
            );
          })}
        </tr>
      </thead>
      <tbody className={c.tbody}>{props.children}</tbody>
    </table>
  );
  if (!props.scroll) return table;
  return (
    <div className={c.region} tabIndex={0} role="region" aria-label={props.regionLabel ?? props.caption}>
      {table}
    </div>
  );
}
