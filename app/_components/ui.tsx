/** The dashboard's small component kit (Tailwind): one look for every page. Server-safe (no hooks). */
// The table alone: the package's main entry brings Recharts, which only runs in client components.
import { DataTable } from '@shared/charts/table';
import Link from 'next/link';
import { cx, fieldClass } from './style';
import type { ButtonHTMLAttributes, InputHTMLAttributes, ReactNode, SelectHTMLAttributes } from 'react';

export { cx } from './style';
export { Input, Textarea } from './fields';

type Variant = 'primary' | 'secondary' | 'danger' | 'ghost';
const VARIANTS: Record<Variant, string> = {
  primary: 'bg-blue-700 text-white hover:bg-blue-800 disabled:bg-blue-400',
  secondary: 'bg-white text-zinc-900 border border-zinc-300 hover:bg-zinc-100 disabled:text-zinc-500',
  danger: 'bg-red-700 text-white hover:bg-red-800 disabled:bg-red-400',
  ghost: 'text-zinc-800 hover:bg-zinc-200/70',
};
const SIZES = { sm: 'px-2.5 py-1 text-sm', md: 'px-3.5 py-2 text-sm' };

export function buttonClass(variant: Variant = 'primary', size: keyof typeof SIZES = 'md') {
  return cx(
    'inline-flex items-center justify-center gap-1.5 rounded-lg font-medium whitespace-nowrap transition-colors disabled:cursor-not-allowed',
    VARIANTS[variant],
    SIZES[size],
  );
}

export function Button({
  variant = 'primary',
  size = 'md',
  className,
  type = 'button',
  ...props
}: ButtonHTMLAttributes<HTMLButtonElement> & { variant?: Variant; size?: keyof typeof SIZES }) {
  return <button type={type} className={cx(buttonClass(variant, size), className)} {...props} />;
}

export function ButtonLink({
  href,
  variant = 'primary',
  size = 'md',
  children,
  className,
}: {
  href: string;
  variant?: Variant;
  size?: keyof typeof SIZES;
  children: ReactNode;
  className?: string;
}) {
  return (
    <Link href={href} className={cx(buttonClass(variant, size), className)}>
      {children}
    </Link>
  );
}

export function Select({ className, ...props }: SelectHTMLAttributes<HTMLSelectElement>) {
  return <select className={cx(fieldClass, 'pr-8', className)} {...props} />;
}

/** Label + control + hint + inline error; `id` ties them together for assistive technology. */
export function Field({
  id,
  label,
  hint,
  error,
  children,
  className,
}: {
  id: string;
  label: ReactNode;
  hint?: ReactNode;
  error?: string;
  children: ReactNode;
  className?: string;
}) {
  return (
    <div className={cx('space-y-1', className)}>
      <label htmlFor={id} className="block text-sm font-medium text-zinc-800">
        {label}
      </label>
      {children}
      {hint && !error ? (
        <p id={`${id}-hint`} className="text-xs text-zinc-600">
          {hint}
        </p>
      ) : null}
      {error ? (
        <p id={`${id}-error`} className="text-sm text-red-700">
          {error}
        </p>
      ) : null}
    </div>
  );
}

export function Checkbox({
  id,
  label,
  hint,
  ...props
}: InputHTMLAttributes<HTMLInputElement> & { id: string; label: ReactNode; hint?: ReactNode }) {
  return (
    <div className="flex items-start gap-2">
      <input id={id} type="checkbox" className="mt-0.5 h-4 w-4 rounded border-zinc-400 accent-blue-700" {...props} />
      <div>
        <label htmlFor={id} className="text-sm font-medium text-zinc-800">
          {label}
        </label>
        {hint ? <p className="text-xs text-zinc-600">{hint}</p> : null}
      </div>
    </div>
  );
}

export function Card({
  title,
  description,
  actions,
  children,
  className,
}: {
  title?: ReactNode;
  description?: ReactNode;
  actions?: ReactNode;
  children?: ReactNode;
  className?: string;
}) {
  return (
    <section className={cx('rounded-xl border border-zinc-200 bg-white p-4 shadow-sm sm:p-5', className)}>
      {title || actions ? (
        <div className="mb-4 flex flex-wrap items-start justify-between gap-3">
          <div>
            {title ? <h2 className="text-base font-semibold text-zinc-900">{title}</h2> : null}
            {description ? <p className="mt-0.5 text-sm text-zinc-600">{description}</p> : null}
          </div>
          {actions ? <div className="flex flex-wrap gap-2">{actions}</div> : null}
        </div>
      ) : null}
      {children}
    </section>
  );
}

type Tone = 'neutral' | 'green' | 'amber' | 'red' | 'blue' | 'violet';
const TONES: Record<Tone, string> = {
  neutral: 'bg-zinc-100 text-zinc-800 ring-zinc-300',
  green: 'bg-green-50 text-green-800 ring-green-300',
  amber: 'bg-amber-50 text-amber-900 ring-amber-300',
  red: 'bg-red-50 text-red-800 ring-red-300',
  blue: 'bg-blue-50 text-blue-800 ring-blue-300',
  violet: 'bg-violet-50 text-violet-800 ring-violet-300',
};

export function Badge({ tone = 'neutral', children }: { tone?: Tone; children: ReactNode }) {
  return (
    <span
      className={cx(
        'inline-flex items-center rounded-full px-2 py-0.5 text-xs font-medium ring-1 ring-inset',
        TONES[tone],
      )}
    >
      {children}
    </span>
  );
}

export function PageHeader({
  title,
  description,
  actions,
}: {
  title: ReactNode;
  description?: ReactNode;
  actions?: ReactNode;
}) {
  return (
    <div className="mb-6 flex flex-wrap items-end justify-between gap-3">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight text-zinc-900">{title}</h1>
        {description ? <p className="mt-1 text-sm text-zinc-600">{description}</p> : null}
      </div>
      {actions ? <div className="flex flex-wrap gap-2">{actions}</div> : null}
    </div>
  );
}

export function EmptyState({ title, children }: { title: ReactNode; children?: ReactNode }) {
  return (
    <div className="rounded-xl border border-dashed border-zinc-300 bg-white px-4 py-10 text-center">
      <p className="font-medium text-zinc-900">{title}</p>
      {children ? <div className="mt-1 text-sm text-zinc-600">{children}</div> : null}
    </div>
  );
}

export function ErrorState({
  title = 'Something went wrong',
  message,
  children,
}: {
  title?: ReactNode;
  message?: ReactNode;
  children?: ReactNode;
}) {
  return (
    <div role="alert" className="rounded-xl border border-red-200 bg-red-50 px-4 py-4 text-sm text-red-900">
      <p className="font-semibold">{title}</p>
      {message ? <p className="mt-1">{message}</p> : null}
      {children}
    </div>
  );
}

export function Notice({ tone = 'amber', children }: { tone?: 'amber' | 'blue'; children: ReactNode }) {
  return (
    <div
      className={cx(
        'rounded-lg border px-3 py-2 text-sm',
        tone === 'amber' ? 'border-amber-300 bg-amber-50 text-amber-950' : 'border-blue-200 bg-blue-50 text-blue-950',
      )}
    >
      {children}
    </div>
  );
}

export function Skeleton({ className }: { className?: string }) {
  return <div aria-hidden="true" className={cx('animate-pulse rounded-md bg-zinc-200', className)} />;
}

export function Loading({ label = 'Loading…', rows = 3 }: { label?: string; rows?: number }) {
  return (
    <div role="status" aria-live="polite" className="space-y-2">
      <span className="sr-only">{label}</span>
      {Array.from({ length: rows }, (_, i) => (
        <Skeleton key={i} className="h-9 w-full" />
      ))}
    </div>
  );
}

/** A horizontally scrollable table (phones) with consistent cell styles. */
/** A table of text with column headers (the shared DataTable, @shared/charts, in the dashboard's style). */
export function Table({ children, caption, columns }: { children: ReactNode; caption: string; columns: string[] }) {
  return (
    <DataTable
      caption={caption}
      columns={columns}
      // relative: keeps absolutely positioned screen-reader text inside the scroll box (else the page scrolls
      // sideways); the region is focusable: keyboard users can scroll it too.
      scroll
      classes={{
        region: 'relative -mx-4 overflow-x-auto sm:mx-0',
        table: 'min-w-full divide-y divide-zinc-200 text-sm',
        th: 'px-3 py-2 text-left text-xs font-semibold tracking-wide text-zinc-700 uppercase whitespace-nowrap',
        tbody: 'divide-y divide-zinc-100',
      }}
    >
      {children}
    </DataTable>
  );
}
export const td = 'px-3 py-2 align-top text-zinc-800';

export function formatDate(value: string | Date | null | undefined) {
  if (!value) return '—';
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) return '—';
  return d.toISOString().replace('T', ' ').slice(0, 16) + ' UTC';
}
