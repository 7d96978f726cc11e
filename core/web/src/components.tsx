/** The few shared pieces of the pages: error notice, pager, two-step confirm, dates. */
// The shared table alone (@shared/charts' main entry brings Recharts, which only the overview's charts load).
import { DataTable } from '@shared/charts/table';
import { createContext, useContext, useEffect, useId, useRef, useState, type ReactNode } from 'react';
import { ApiError } from './http';
import { ROLES, type Me, type Pagination, type Role } from './types';

export const MeContext = createContext<Me | null>(null);
/** The signed-in caller (only rendered inside the signed-in shell). */
export function useMe(): Me & { isAdmin: boolean } {
  const me = useContext(MeContext);
  if (!me) throw new Error('useMe outside the signed-in shell');
  return { ...me, isAdmin: me.role === 'admin' };
}

let firstHeading = true;
/**
 * A page's h1; it names the document too, and after client-side navigation it takes the focus, so that screen
 * readers announce the new page and keyboard users start at its top (the first page load leaves focus alone).
 */
export function PageHeading({ children }: { children: string }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${children} · Core`;
    if (firstHeading) firstHeading = false;
    else ref.current?.focus();
  }, [children]);
  return (
    <h1 ref={ref} tabIndex={-1}>
      {children}
    </h1>
  );
}

export function errorMessage(err: unknown): string {
  if (err instanceof ApiError && err.retryAfterSeconds) {
    const minutes = Math.ceil(err.retryAfterSeconds / 60);
    return `${err.message} Try again in ${minutes === 1 ? 'a minute' : `${minutes} minutes`}.`;
  }
  if (err instanceof ApiError) return err.message;
  return err instanceof Error ? err.message : 'Something went wrong.';
}

export function ErrorNotice({ error }: { error: unknown }) {
  if (!error) return null;
  return (
    <p role="alert" className="notice error">
      {errorMessage(error)}
    </p>
  );
}

export function formatDate(iso: string | null, empty = '—'): string {
  return iso ? new Date(iso).toLocaleString() : empty;
}

export function Pager({
  pagination,
  onPage,
  label,
}: {
  pagination: Pagination;
  onPage: (page: number) => void;
  label: string;
}) {
  if (pagination.totalPages <= 1) return null;
  const { page, totalPages, total } = pagination;
  return (
    <nav className="pager" aria-label={label}>
      <button type="button" onClick={() => onPage(page - 1)} disabled={page <= 1}>
        Previous
      </button>
      <span>
        Page {page} of {totalPages} ({total})
      </span>
      <button type="button" onClick={() => onPage(page + 1)} disabled={page >= totalPages}>
        Next
      </button>
    </nav>
  );
}

/** A destructive action asks once more in place (no modal): "Revoke" → "Confirm revoke" / "Cancel". */
export function ConfirmButton({
  label,
  subject,
  onConfirm,
  busy,
}: {
  label: string;
  subject: string;
  onConfirm: () => void;
  busy?: boolean;
}) {
  const [asking, setAsking] = useState(false);
  if (!asking) {
    return (
      <button
        type="button"
        className="danger"
        aria-label={`${label} ${subject}`}
        onClick={() => setAsking(true)}
        disabled={busy}
      >
        {label}
      </button>
    );
  }
  return (
    <span className="confirm">
      <button
        type="button"
        className="danger solid"
        autoFocus
        onClick={() => {
          setAsking(false);
          onConfirm();
        }}
      >
        Confirm {label.toLowerCase()} {subject}
      </button>
      <button type="button" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </span>
  );
}

export function Field({
  label,
  children,
  hint,
}: {
  label: string;
  children: (id: string, hintId?: string) => ReactNode;
  hint?: string;
}) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {children(id, hint ? id + '-hint' : undefined)}
      {hint && (
        <small id={id + '-hint'} className="hint">
          {hint}
        </small>
      )}
    </div>
  );
}

export function RoleSelect({
  value,
  onChange,
  ...rest
}: {
  value: Role;
  onChange: (role: Role) => void;
  id?: string;
  'aria-label'?: string;
  disabled?: boolean;
}) {
  return (
    <select {...rest} value={value} onChange={(e) => onChange(e.target.value as Role)}>
      {ROLES.map((r) => (
        <option key={r}>{r}</option>
      ))}
    </select>
  );
}

/** A list as a table with a caption for screen readers; at phone width each row becomes a labelled card (styles.css). */
export function ListTable({ caption, columns, children }: { caption: string; columns: string[]; children: ReactNode }) {
  return (
    <DataTable caption={caption} columns={columns} classes={{ table: 'list' }}>
      {children}
    </DataTable>
  );
}
