/** The chart and the table of both frontends (the Hub's dashboard and Core's web UI). */
export { Chart, type ChartClasses, type ChartColors, type ChartProps, type ChartSeries } from './chart';
export { formatCount, seriesTotals, summarize, type SummaryInput, type SummarySeries } from './summary';
export { DataTable, type Column, type DataTableProps, type TableClasses } from './table';
